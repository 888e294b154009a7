// The period a statistics page shows, kept in the page address (?range= or ?from=&to=, and ?tz=): its query for the
// API, the names of the ranges, and the labels of a series' points (already in the answer's time zone).
import { useSearchParams } from "react-router";
import type { Query } from "@snip/client";
import type { RANGE_NAMES, Stats } from "@contract/stats";
import { formatDay } from "../dates";
import { validYmd } from "./days";

/** The contract's names (its `range` field's static type is too wide to name them). */
export type RangeName = (typeof RANGE_NAMES)[number];
/** A period as the statistics routes read it. */
export type PeriodParams = Query<"/api/links/{id}/stats", "get">;

/** A query in an address (the CSV downloads; the pages' memo keys). */
export function queryString(params: Record<string, string | undefined>): string {
  return new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
}
export type Granularity = NonNullable<Stats["granularity"]>;

/** What both answers (a link's statistics, an account's analytics) hold for their period. */
export type PeriodData = Pick<
  Stats,
  | "range"
  | "tz"
  | "from"
  | "to"
  | "granularity"
  | "range_clicks"
  | "range_visitors"
  | "range_qr"
  | "previous"
  | "change"
  | "series"
  | "sources"
  | "countries"
  | "devices"
  | "browsers"
  | "os"
  | "referrers"
  | "regions"
  | "cities"
  | "referrer_urls"
  | "utm_sources"
  | "utm_mediums"
  | "utm_campaigns"
  | "bots"
  | "bot_share"
>;

/** Each named range: its name, its label, and the chip's short label. */
export const RANGES: readonly (readonly [RangeName, string, string])[] = [
  ["24h", "Last 24 hours", "24 hours"],
  ["7d", "Last 7 days", "7 days"],
  ["30d", "Last 30 days", "30 days"],
  ["90d", "Last 90 days", "90 days"],
  ["mtd", "This month", "This month"],
  ["lastmonth", "Last month", "Last month"],
  ["12mo", "Last 12 months", "12 months"],
  ["all", "All time", "All time"],
];
const NAMES = new Set<string>(RANGES.map(([n]) => n));
const DEFAULT_RANGE: RangeName = "30d";

/** The zone the browser runs in (UTC when it does not say). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** The last zone chosen on either statistics page, so that the next page opens in it. */
const ZONE_KEY = "snip.statsZone";
function rememberedZone(): string | null {
  try {
    return localStorage.getItem(ZONE_KEY);
  } catch {
    return null;
  }
}

export interface Period {
  /** A named range, or null for custom days. */
  range: RangeName | null;
  from: string | null;
  to: string | null;
  tz: string;
  /** The API's query of this period (range or from/to, and tz). */
  params: PeriodParams;
  setRange(range: RangeName): void;
  setDays(from: string, to: string): void;
  setZone(tz: string): void;
}

/** The page's period from its address: a named range (30 days unless told), or custom days; the zone. */
export function usePeriod(): Period {
  const [params, setParams] = useSearchParams();
  const from = validYmd(params.get("from")) ? params.get("from") : null;
  const to = validYmd(params.get("to")) ? params.get("to") : null;
  const named = params.get("range");
  const range = from && to ? null : named && NAMES.has(named) ? (named as RangeName) : DEFAULT_RANGE;
  const tz = params.get("tz") || rememberedZone() || browserZone();
  const query: PeriodParams = range ? { range, tz } : { from: from ?? "", to: to ?? "", tz };

  const change = (edit: (next: URLSearchParams) => void) => {
    const next = new URLSearchParams(params);
    edit(next);
    setParams(next, { replace: true });
  };
  return {
    range,
    from,
    to,
    tz,
    params: query,
    setRange: (r) =>
      change((next) => {
        next.delete("from");
        next.delete("to");
        next.set("range", r);
      }),
    setDays: (f, t) =>
      change((next) => {
        next.delete("range");
        next.set("from", f);
        next.set("to", t);
      }),
    setZone: (zone) => {
      try {
        localStorage.setItem(ZONE_KEY, zone);
      } catch {
        /* private mode: the address still carries it */
      }
      change((next) => next.set("tz", zone));
    },
  };
}

export function rangeLabel(range: RangeName | null | undefined): string | null {
  return RANGES.find(([n]) => n === range)?.[1] ?? null;
}

const DAY = 86_400_000;
function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY) + 1;
}

/** "previous 7 days", "previous 24 hours", "previous 12 months": the period a change compares with. */
export function previousLabel(data: Pick<PeriodData, "range" | "previous">): string {
  if (data.range === "24h") return "previous 24 hours";
  if (data.range === "12mo") return "previous 12 months";
  const p = data.previous;
  if (!p) return "previous period";
  const n = dayCount(p.from, p.to);
  return n === 1 ? "previous day" : `previous ${n} days`;
}

/** The answer's days as a sentence: "Nov 20 to Nov 26" (a label of the range, when it has a name). */
export function periodText(data: Pick<PeriodData, "range" | "from" | "to">): string {
  const days = data.from === data.to ? formatDay(data.from) : `${formatDay(data.from)} to ${formatDay(data.to)}`;
  const name = rangeLabel(data.range);
  return name ? `${name} · ${days}` : days;
}

const MONTH = new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric", timeZone: "UTC" });
const HOUR = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", timeZone: "UTC" });

/**
 * A point's label, short, as the axis shows it: "14:00" (hour), "Nov 21" (day), "Nov 2026" (month). The API's
 * label is already in the chosen zone, so it is read as numbers, never moved through the browser's zone.
 */
export function pointLabel(label: string, granularity: Granularity | undefined): string {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?(?:T(\d{2}):\d{2})?$/.exec(label);
  if (!m) return label;
  const [y, mo, d, h] = [Number(m[1]), Number(m[2]) - 1, Number(m[3] ?? 1), Number(m[4] ?? 0)];
  const at = new Date(Date.UTC(y, mo, d, h));
  if (granularity === "month" || !m[3]) return MONTH.format(at);
  if (granularity === "hour" && m[4] !== undefined) return HOUR.format(at);
  return formatDay(`${m[1]}-${m[2]}-${m[3]}`);
}

/** A point's label in full, for its tooltip: "Nov 21, 14:00". */
export function pointTitle(label: string, granularity: Granularity | undefined): string {
  if (granularity !== "hour") return pointLabel(label, granularity);
  return `${formatDay(label.slice(0, 10))}, ${pointLabel(label, granularity)}`;
}
