// Groups turned into roll-up rows and click_count increments, in key order (rollUp). Terms: README.md.
import type { Selectable } from "kysely";
import type { OwnerBreakdownMonthTable, OwnerBreakdownTable, OwnerDailyTable, OwnerHourlyTable } from "../storage/click-tables.js";
import { type UtmKey, utmValues } from "./utm-values.js";
import {
  BREAKDOWNS,
  type BreakdownDimension,
  type BreakdownRow,
  type DailyRow,
  type Group,
  type HourlyRow,
  type MonthlyRow,
  compareIds,
} from "./click-groups.js";

export type OwnerDailyRow = Selectable<OwnerDailyTable>;
export type OwnerHourlyRow = Selectable<OwnerHourlyTable>;
export type OwnerBreakdownRow = Selectable<OwnerBreakdownTable>;
export type OwnerMonthlyRow = Selectable<OwnerBreakdownMonthTable>;

export interface RollUps {
  /** [link id, clicks to add to links.click_count, latest click's time for links.last_click_at], by link id. */
  increments: [string, number, number][];
  daily: DailyRow[];
  hourly: HourlyRow[];
  breakdown: BreakdownRow[];
  monthly: MonthlyRow[];
  /** The same summed per owner of the links (links without an owner have none), in key order. */
  ownerDaily: OwnerDailyRow[];
  ownerHourly: OwnerHourlyRow[];
  ownerBreakdown: OwnerBreakdownRow[];
  /** The monthly rows summed per owner: an owner's monthly rows are always the sum of its links' (migration 062). */
  ownerMonthly: OwnerMonthlyRow[];
}

/** The live links of a roll-up and their owners (null: a link nobody owns). */
export type LiveLinks = ReadonlyMap<string, string | null>;

/** The breakdowns in the order of their names: a link's breakdown rows of one day and value come in key order. */
const BREAKDOWNS_BY_NAME = [...BREAKDOWNS].sort();

/**
 * A group's value for a breakdown; null where no row is written: the destination of clicks sent to the
 * link's url, the source of clicks that are not QR scans (both derived at read from the day's clicks),
 * and the finer values a click does not have (no region, no referrer, no UTM value).
 */
export function valueOf(g: Group, dim: BreakdownDimension, utm: Partial<Record<UtmKey, string>> | null): string | null {
  switch (dim) {
    case "source":
      return g.qr === 1 ? "qr" : null;
    case "utm_source":
    case "utm_medium":
    case "utm_campaign":
    case "utm_term":
    case "utm_content":
      return utm?.[dim] ?? null;
    default:
      return g[dim];
  }
}

/** "YYYY-MM" of the month before a "YYYY-MM". */
export function monthBefore(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, "0")}`;
}

/**
 * Roll-up rows of the groups whose link still exists (`live`, with its owner); monthly rows only where `keepsMonth` says that
 * month's monthly rows are kept up to date (SQLite compacts the others from the daily rows later).
 * Rows come in key order (link id, then day, hour or month, dimension, value) so that concurrent flushes
 * (several instances on one PostgreSQL) lock them in the same order and cannot deadlock.
 */
export function rollUp(groups: Group[], live: LiveLinks, keepsMonth: (linkId: string, month: string) => boolean = () => true): RollUps {
  const sorted = groups.every((g, i) => i === 0 || compareIds(groups[i - 1]!.link_id, g.link_id) <= 0)
    ? groups
    : [...groups].sort((a, b) => compareIds(a.link_id, b.link_id));
  const out: RollUps = {
    increments: [],
    daily: [],
    hourly: [],
    breakdown: [],
    monthly: [],
    ownerDaily: [],
    ownerHourly: [],
    ownerBreakdown: [],
    ownerMonthly: [],
  };
  for (let i = 0; i < sorted.length;) {
    const linkId = sorted[i]!.link_id;
    let j = i + 1;
    while (j < sorted.length && sorted[j]!.link_id === linkId) j++;
    if (live.has(linkId)) rollUpLink(sorted.slice(i, j), keepsMonth, out);
    i = j;
  }
  byOwner(out, live);
  return out;
}

/** The owner rows: the links' rows summed per owner, in key order (owner, then day, hour or dimension, day or month, value). */
function byOwner(out: RollUps, live: LiveLinks): void {
  const daily = new Map<string, OwnerDailyRow>();
  const hourly = new Map<string, OwnerHourlyRow>();
  const breakdown = new Map<string, OwnerBreakdownRow>();
  const monthly = new Map<string, OwnerMonthlyRow>();
  const sum = <R extends { clicks: number; visitors: number }>(
    m: Map<string, R>,
    key: string,
    make: () => R,
    r: { clicks: number; visitors: number; bots?: number; qr?: number },
  ) => {
    const o = add(m, key, make, r.clicks, r.visitors) as R & { bots?: number; qr?: number };
    if (r.bots !== undefined) o.bots! += r.bots;
    if (r.qr !== undefined) o.qr! += r.qr;
  };
  for (const d of out.daily) {
    const owner = live.get(d.link_id);
    if (owner) sum(daily, `${owner}\u0000${d.day}`, () => ({ owner_id: owner, day: d.day, clicks: 0, bots: 0, visitors: 0, qr: 0 }), d);
  }
  for (const h of out.hourly) {
    const owner = live.get(h.link_id);
    if (owner)
      sum(hourly, `${owner}\u0000${String(h.hour).padStart(16, "0")}`, () => ({ owner_id: owner, hour: h.hour, clicks: 0, bots: 0, visitors: 0, qr: 0 }), h);
  }
  for (const b of out.breakdown) {
    const owner = live.get(b.link_id);
    if (owner)
      sum(
        breakdown,
        `${owner}\u0000${b.dimension}\u0000${b.day}\u0000${b.value}`,
        () => ({ owner_id: owner, day: b.day, dimension: b.dimension, value: b.value, clicks: 0, visitors: 0 }),
        b,
      );
  }
  for (const m of out.monthly) {
    const owner = live.get(m.link_id);
    if (owner)
      sum(
        monthly,
        `${owner}\u0000${m.dimension}\u0000${m.month}\u0000${m.value}`,
        () => ({ owner_id: owner, month: m.month, dimension: m.dimension, value: m.value, clicks: 0, visitors: 0 }),
        m,
      );
  }
  out.ownerDaily = byKey(daily);
  out.ownerHourly = byKey(hourly);
  out.ownerBreakdown = byKey(breakdown);
  out.ownerMonthly = byKey(monthly);
}

/** One link's rows from its groups, summed by key and sorted by it. */
function rollUpLink(groups: Group[], keepsMonth: (linkId: string, month: string) => boolean, out: RollUps): void {
  const linkId = groups[0]!.link_id;
  const daily = new Map<string, DailyRow>();
  const hourly = new Map<number, HourlyRow>();
  const breakdown = new Map<string, BreakdownRow>();
  const monthly = new Map<string, MonthlyRow>();
  let increment = 0;
  let lastAt = 0;
  for (const g of groups) {
    const n = g.clicks;
    const visitors = g.visitors;
    increment += n - g.counted;
    if (g.last_at > lastAt) lastAt = g.last_at;
    const d = add(daily, g.day, () => ({ link_id: linkId, day: g.day, clicks: 0, bots: 0, visitors: 0, qr: 0 }), n, visitors);
    d.bots += g.is_bot * n;
    d.qr += g.qr * n;
    const h = add(hourly, g.hour, () => ({ link_id: linkId, hour: g.hour, clicks: 0, bots: 0, visitors: 0, qr: 0 }), n, visitors);
    h.bots += g.is_bot * n;
    h.qr += g.qr * n;
    const month = g.day.slice(0, 7);
    const toMonth = keepsMonth(linkId, month);
    const utm = g.utm === null ? null : utmValues(g.utm);
    for (const dim of BREAKDOWNS_BY_NAME) {
      const value = valueOf(g, dim, utm);
      if (value === null) continue;
      add(breakdown, `${g.day}\u0000${dim}\u0000${value}`, () => ({ link_id: linkId, day: g.day, dimension: dim, value, clicks: 0, visitors: 0 }), n, visitors);
      if (toMonth)
        add(monthly, `${month}\u0000${dim}\u0000${value}`, () => ({ link_id: linkId, month, dimension: dim, value, clicks: 0, visitors: 0 }), n, visitors);
    }
  }
  if (increment > 0) out.increments.push([linkId, increment, lastAt]);
  for (const r of byKey(daily)) out.daily.push(r);
  for (const k of [...hourly.keys()].sort((a, b) => a - b)) out.hourly.push(hourly.get(k) as HourlyRow);
  for (const r of byKey(breakdown)) out.breakdown.push(r);
  for (const r of byKey(monthly)) out.monthly.push(r);
}

function add<K, R extends { clicks: number; visitors: number }>(m: Map<K, R>, key: K, make: () => R, n: number, visitors: number): R {
  let r = m.get(key);
  if (r === undefined) {
    r = make();
    m.set(key, r);
  }
  r.clicks += n;
  r.visitors += visitors;
  return r;
}

function byKey<V>(m: Map<string, V>): V[] {
  return [...m.keys()].sort().map((k) => m.get(k) as V);
}
