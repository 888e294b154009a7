// The account analytics' filters kept in the page address beside the period: whose links (a team owner's, for a
// member), one link, one domain, one tag; with the period, they are the API's query.
import { useSearchParams } from "react-router";
import type { PeriodParams } from "../shared/charts/period";
import type { AnalyticsParams } from "./analytics-api";

export interface AnalyticsFilters {
  /** A team owner's user id, "" for the user's own links. */
  owner: string;
  /** A link id. */
  link: string;
  domain: string;
  /** A tag id. */
  tag: string;
}

const KEYS = ["owner", "link", "domain", "tag"] as const;

export function useAnalyticsFilters(): { filters: AnalyticsFilters; set: (change: Partial<AnalyticsFilters>) => void } {
  const [params, setParams] = useSearchParams();
  const filters = { owner: params.get("owner") ?? "", link: params.get("link") ?? "", domain: params.get("domain") ?? "", tag: params.get("tag") ?? "" };
  const set = (change: Partial<AnalyticsFilters>) => {
    const next = new URLSearchParams(params);
    // Another owner's links, tags and domains are other ones: a new owner starts without filters.
    const merged =
      change.owner !== undefined && change.owner !== filters.owner ? { owner: change.owner, link: "", domain: "", tag: "" } : { ...filters, ...change };
    for (const k of KEYS) {
      if (merged[k]) next.set(k, merged[k]);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };
  return { filters, set };
}

/** The period's query with the filters that are set. */
export function withFilters(period: PeriodParams, filters: AnalyticsFilters): AnalyticsParams {
  const q: AnalyticsParams = { ...period };
  for (const k of KEYS) if (filters[k]) q[k] = filters[k];
  return q;
}
