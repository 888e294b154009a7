// The "+" page's facts (docs/api.md, Where a link goes): what a short link is and where it sends people, read
// without a visit, so without a click. The state is decided in the redirect's own order (resolve-link.ts):
// disabled and blocked first, then not open yet, expired, click limit, password. What a state hides stays
// hidden: a link not open yet, disabled or blocked shows no destination (an unreleased campaign, a legal
// takedown, a harmful site), a password link shows only that it asks for one.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { LinkService } from "../links/links.js";
import { rulesOf, splitOf } from "../links/link-targeting.js";
import type { RedirectService } from "./resolve-link.js";

export type LinkState = "active" | "scheduled" | "expired" | "limited" | "password" | "blocked" | "disabled";

/** Another address some visitors are sent to, and why. */
export interface OtherDestination {
  url: string;
  /** rule: a redirect rule; split: a split's variant; ios, android: the device destinations; fallback: after expiry or the click limit. */
  kind: "rule" | "split" | "ios" | "android" | "fallback";
}

/** What link health knows of the main destination (docs/health.md), for an active link while checks are on. */
export interface DestinationCheck {
  /** unknown: not checked yet (or only neutral answers). */
  state: "unknown" | "ok" | "failing" | "broken";
  checked_at: number | null;
  broken_since: number | null;
  /** The link's other destinations (rules, devices, variants) that are broken. */
  others_broken: number;
}

export interface LinkInfo {
  state: LinkState;
  /** The main destination; null where the state hides it. */
  url: string | null;
  title: string | null;
  created_at: number;
  expires_at: number | null;
  /** When it opens (scheduled links). */
  starts_at: number | null;
  max_clicks: number | null;
  /** Open abuse reports not yet decided by an operator. */
  reported: boolean;
  /** 410 or 451 for a disabled link. */
  disabled_status: number | null;
  others: OtherDestination[];
  /** Null unless the link is active and its destinations are checked (LINK_CHECKS). */
  health: DestinationCheck | null;
}

/** At most this many other destinations are listed (a link has at most MAX_RULES rules and MAX_VARIANTS variants). */
const MAX_OTHERS = 40;

export interface LinkInfoDeps {
  db: Db;
  /** LINK_CHECKS: destinations are checked. */
  linkChecks: boolean;
  clock: Clock;
  links: Pick<LinkService, "find">;
  redirects: Pick<RedirectService, "find" | "domainFor">;
}

function othersOf(
  row: { rules: string | null; split: string | null; ios_url: string | null; android_url: string | null; expired_url: string | null },
  main: string,
): OtherDestination[] {
  const all: OtherDestination[] = [
    ...rulesOf(row.rules).map((r) => ({ url: r.url, kind: "rule" as const })),
    ...splitOf(row.split).map((v) => ({ url: v.url, kind: "split" as const })),
    ...(row.ios_url ? [{ url: row.ios_url, kind: "ios" as const }] : []),
    ...(row.android_url ? [{ url: row.android_url, kind: "android" as const }] : []),
    ...(row.expired_url ? [{ url: row.expired_url, kind: "fallback" as const }] : []),
  ];
  const seen = new Set([main]);
  return all.filter((d) => !seen.has(d.url) && seen.add(d.url) !== undefined).slice(0, MAX_OTHERS);
}

/** The link at `host` + `alias` as the "+" page shows it, or null (unknown, deleted, a reserved word). */
export async function linkInfo(deps: LinkInfoDeps, host: string, alias: string): Promise<LinkInfo | null> {
  const domain = deps.redirects.domainFor(host);
  // Through the redirect's cache: the blocklist's verdict and the same "does it exist" as a visit.
  const cached = await deps.redirects.find(domain, alias);
  if (cached === null) return null;
  const row = await deps.links.find(domain, alias);
  if (row === null) return null;
  const now = deps.clock.now();
  const state: LinkState =
    row.disabled_status !== null
      ? "disabled"
      : cached.blocked
        ? "blocked"
        : row.starts_at !== null && now < row.starts_at
          ? "scheduled"
          : row.expires_at !== null && now >= row.expires_at
            ? "expired"
            : row.max_clicks !== null && Number(row.click_count) >= row.max_clicks
              ? "limited"
              : row.password_hash !== null
                ? "password"
                : "active";
  const hidden = state === "disabled" || state === "blocked" || state === "scheduled" || state === "password";
  const report = await deps.db.selectFrom("abuse_reports").select("id").where("link_id", "=", row.id).where("state", "=", "open").limit(1).executeTakeFirst();
  return {
    state,
    url: hidden ? null : row.url,
    title: hidden ? null : row.title,
    created_at: Number(row.created_at),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    starts_at: row.starts_at === null ? null : Number(row.starts_at),
    max_clicks: row.max_clicks,
    reported: report !== undefined,
    disabled_status: row.disabled_status,
    others: hidden ? [] : othersOf(row, row.url),
    health: state === "active" && deps.linkChecks ? await destinationCheck(deps.db, row.id) : null,
  };
}

/** The main destination's last check, and how many other destinations are broken (the fallback aside: it is not in use). */
async function destinationCheck(db: Db, linkId: string): Promise<DestinationCheck> {
  const rows = await db.selectFrom("link_health").select(["destination", "state", "last_checked_at", "broken_since"]).where("link_id", "=", linkId).execute();
  const main = rows.find((r) => r.destination === "default");
  const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    state: (main?.state ?? "unknown") as DestinationCheck["state"],
    checked_at: num(main?.last_checked_at),
    broken_since: num(main?.broken_since),
    others_broken: rows.filter((r) => r.destination !== "default" && r.destination !== "fallback" && r.state === "broken").length,
  };
}
