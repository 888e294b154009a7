// Where a link's clicks went, for its statistics: clicks per destination over the range and per day.
// Only clicks not sent to the link's url have breakdown rows (dimension "destination"): a link without
// rules or split has none, and its clicks cost nothing more. The link's url, "default", is what is left:
// the day's clicks minus the day's other destinations.
import type { Db } from "../storage/db.js";
import type { LinkRow } from "../storage/schema.js";
import type { Group } from "./click-groups.js";
import type { DayRange } from "./range.js";

export const DEFAULT_DESTINATION = "default";

/** Clicks of one day that went to one destination (not the default). */
export interface DayCount {
  day: string;
  destination: string;
  clicks: number;
}

export interface DestinationStats {
  destinations: Array<{ destination: string; url: string | null; clicks: number; share: number }>;
  destinations_daily: Array<{ date: string; destination: string; clicks: number }>;
}

type TargetedLink = Pick<LinkRow, "url" | "ios_url" | "android_url" | "rules" | "split"> & Partial<Pick<LinkRow, "app_ios_store_id" | "app_android_package">>;

/** The stored daily rows of the range's clicks not sent to the link's url (one range of the breakdown's key). */
export async function storedDestinations(db: Db, linkId: string, range: Pick<DayRange, "from" | "to">): Promise<DayCount[]> {
  const rows = await db
    .selectFrom("click_breakdown")
    .select(["day", "value", "clicks"])
    .where("link_id", "=", linkId)
    .where("dimension", "=", "destination")
    .where("day", ">=", range.from)
    .where("day", "<=", range.to)
    .execute();
  return rows.map((r) => ({ day: r.day, destination: r.value, clicks: Number(r.clicks) }));
}

/** What groups of clicks (held back or not committed yet) add to the stored rows. */
export function groupDestinations(groups: Group[]): DayCount[] {
  const out: DayCount[] = [];
  for (const g of groups) if (g.destination !== null) out.push({ day: g.day, destination: g.destination, clicks: g.clicks });
  return out;
}

/** Order of destinations at equal clicks, and within a day: default, rules, ios, android, variants, numbers in order. */
function rank(code: string): number {
  if (code === DEFAULT_DESTINATION) return 0;
  const n = Number(code.slice(code.indexOf(":") + 1));
  if (code.startsWith("rule:")) return 100 + n;
  if (code === "ios") return 200;
  if (code === "android") return 300;
  if (code.startsWith("variant:")) return 400 + n;
  return 1000;
}

function byRank(a: string, b: string): number {
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function listUrl(json: string | null, n: number): string | null {
  if (json === null || !Number.isInteger(n) || n < 1) return null;
  try {
    const list = JSON.parse(json) as unknown;
    const item = Array.isArray(list) ? (list[n - 1] as { url?: unknown } | undefined) : undefined;
    return typeof item?.url === "string" ? item.url : null;
  } catch {
    return null;
  }
}

/** The address a destination sends to today (null: the link no longer has it). */
export function destinationUrl(link: TargetedLink, code: string): string | null {
  if (code === DEFAULT_DESTINATION) return link.url;
  // A phone of a link with an app goes to its store listing first (docs/deep-links.md, App destinations).
  if (code === "ios") return link.app_ios_store_id ? `https://apps.apple.com/app/id${link.app_ios_store_id}` : link.ios_url;
  if (code === "android")
    return link.app_android_package ? `https://play.google.com/store/apps/details?id=${encodeURIComponent(link.app_android_package)}` : link.android_url;
  if (code.startsWith("rule:")) return listUrl(link.rules, Number(code.slice(5)));
  if (code.startsWith("variant:")) return listUrl(link.split, Number(code.slice(8)));
  return null;
}

/**
 * The range's destinations from its clicks per day (every destination, in day order) and the clicks of
 * the other destinations per day: most clicks first, and per day (days and destinations without clicks left out).
 */
export function destinationStats(link: TargetedLink, perDay: Array<{ date: string; clicks: number }>, others: DayCount[]): DestinationStats {
  const byDay = new Map<string, Map<string, number>>();
  for (const o of others) {
    let day = byDay.get(o.day);
    if (day === undefined) byDay.set(o.day, (day = new Map()));
    day.set(o.destination, (day.get(o.destination) ?? 0) + o.clicks);
  }
  const totals = new Map<string, number>();
  const daily: DestinationStats["destinations_daily"] = [];
  let rangeClicks = 0;
  for (const d of perDay) {
    rangeClicks += d.clicks;
    const day = new Map(byDay.get(d.date) ?? []);
    let rest = d.clicks;
    for (const n of day.values()) rest -= n;
    if (rest > 0) day.set(DEFAULT_DESTINATION, rest);
    for (const code of [...day.keys()].sort(byRank)) {
      const clicks = day.get(code)!;
      if (clicks <= 0) continue;
      daily.push({ date: d.date, destination: code, clicks });
      totals.set(code, (totals.get(code) ?? 0) + clicks);
    }
  }
  const destinations = [...totals]
    .sort((a, b) => b[1] - a[1] || byRank(a[0], b[0]))
    .map(([destination, clicks]) => ({
      destination,
      url: destinationUrl(link, destination),
      clicks,
      share: rangeClicks === 0 ? 0 : Math.round((clicks / rangeClicks) * 10_000) / 10_000,
    }));
  return { destinations, destinations_daily: daily };
}
