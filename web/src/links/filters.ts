// The list's view kept in the page address: filters (tags, folder, domain, state, password, health), search and sort, read from
// and written to the query string under the list API's own names, so a view can be bookmarked and Back works.
import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import type { LinkListOrder, LinkListSort, LinkListState } from "@contract/links";
import type { LinkHealthFilter } from "@contract/health";
import { HEALTHS } from "../shared/link-health";
import { LINK_LIST_STATES } from "@contract/tables";
import type { LinkPageQuery } from "./links-api";

const STATE_LABELS: Record<LinkListState, string> = {
  active: "Active",
  expired: "Expired",
  limit_reached: "Click limit reached",
  disabled: "Disabled",
  archived: "Archived",
};
/** The state filter's choices: the list route's states, in its order. */
export const STATES = LINK_LIST_STATES.map((state) => [state, STATE_LABELS[state]] as const);

export const PASSWORDS = [
  ["true", "With password"],
  ["false", "Without password"],
] as const;

/** The sort menu: each choice is a sort key and an order. */
export const SORTS: readonly (readonly [`${LinkListSort}:${LinkListOrder}`, string])[] = [
  ["created:desc", "Newest"],
  ["created:asc", "Oldest"],
  ["clicks:desc", "Most clicks"],
  ["clicks:asc", "Fewest clicks"],
  ["last_click:desc", "Recently clicked"],
];
export type SortChoice = (typeof SORTS)[number][0];
const DEFAULT_SORT: SortChoice = "created:desc";

export interface ListFilters {
  q: string;
  tags: string[];
  /** A folder's id, or "none" (links in no folder); "" for every link. */
  folder: string;
  domain: string;
  state: LinkListState | "";
  hasPassword: "true" | "false" | "";
  health: LinkHealthFilter | "";
  sort: SortChoice;
}

const oneOf = <T extends string>(choices: readonly (readonly [T, string])[], value: string | null): T | "" =>
  choices.some(([v]) => v === value) ? (value as T) : "";

export function readFilters(p: URLSearchParams): ListFilters {
  const sort = oneOf(SORTS, `${p.get("sort") ?? "created"}:${p.get("order") ?? "desc"}`);
  return {
    q: (p.get("q") ?? "").trim(),
    tags: [...new Set(p.getAll("tag").filter((t) => t.trim() !== ""))],
    folder: (p.get("folder_id") ?? "").trim(),
    domain: p.get("domain") ?? "",
    state: oneOf(STATES, p.get("state")),
    hasPassword: oneOf(PASSWORDS, p.get("has_password")),
    health: oneOf(HEALTHS, p.get("health")),
    sort: sort || DEFAULT_SORT,
  };
}

/** The filters as the list API's query; defaults are left out. */
export function listQuery(f: ListFilters): LinkPageQuery {
  const [sort, order] = f.sort.split(":") as [LinkListSort, LinkListOrder];
  return {
    ...(f.q ? { q: f.q } : {}),
    ...(f.tags.length ? { tag: f.tags } : {}),
    ...(f.folder ? { folder_id: f.folder } : {}),
    ...(f.domain ? { domain: f.domain } : {}),
    ...(f.state ? { state: f.state } : {}),
    ...(f.hasPassword ? { has_password: f.hasPassword === "true" } : {}),
    ...(f.health ? { health: f.health } : {}),
    ...(f.sort !== DEFAULT_SORT ? { sort, order } : {}),
  };
}

/** The filters in the page's own query string: the API's query, so a view can be bookmarked. */
export function toAddress(f: ListFilters): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(listQuery(f))) for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  return p;
}

/** How many filters narrow the list (search and sort aside). */
export function filterCount(f: ListFilters): number {
  return f.tags.length + (f.folder ? 1 : 0) + (f.domain ? 1 : 0) + (f.state ? 1 : 0) + (f.hasPassword ? 1 : 0) + (f.health ? 1 : 0);
}

/**
 * The filters in the address and a setter. Each change is a new history entry (Back returns to the view
 * before), except `replace` ones: the search box refining what it already searched for.
 */
export function useListFilters() {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const filters = useMemo(() => readFilters(new URLSearchParams(key)), [key]);
  const set = useCallback(
    (change: Partial<ListFilters>, opts: { replace?: boolean } = {}) => {
      setParams(
        (prev) => {
          const next = toAddress({ ...readFilters(prev), ...change });
          // The welcome notice goes with the first change of view; anything else the address carries stays.
          for (const [k, v] of prev) if (!FILTER_KEYS.has(k) && k !== "welcome") next.append(k, v);
          return next;
        },
        { replace: opts.replace ?? false },
      );
    },
    [setParams],
  );
  return { filters, set, welcome: params.get("welcome") === "1" };
}

const FILTER_KEYS = new Set(["q", "tag", "folder_id", "domain", "state", "has_password", "health", "sort", "order"]);

/** Every filter and the search off; the sort stays. */
export const CLEARED: Partial<ListFilters> = { q: "", tags: [], folder: "", domain: "", state: "", hasPassword: "", health: "" };
