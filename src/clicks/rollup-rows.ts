// Groups turned into roll-up rows and click_count increments, in key order (rollUp). Terms: README.md.
import { BREAKDOWNS, type BreakdownDimension, type BreakdownRow, type DailyRow, type Group, type MonthlyRow, compareIds } from "./click-groups.js";

export interface RollUps {
  /** [link id, clicks to add to links.click_count, latest click's time for links.last_click_at], by link id. */
  increments: [string, number, number][];
  daily: DailyRow[];
  breakdown: BreakdownRow[];
  monthly: MonthlyRow[];
}

/** The breakdowns in the order of their names: a link's breakdown rows of one day and value come in key order. */
const BREAKDOWNS_BY_NAME = [...BREAKDOWNS].sort();

/** A group's value for a breakdown; null for the destination of clicks sent to the link's url (no row: derived at read). */
function valueOf(g: Group, dim: BreakdownDimension): string | null {
  return g[dim];
}

/**
 * Roll-up rows of the groups whose link still exists; monthly rows only where `keepsMonth` says that
 * month's monthly rows are kept up to date (SQLite compacts the others from the daily rows later).
 * Rows come in key order (link id, then day or month, dimension, value) so that concurrent flushes
 * (several instances on one PostgreSQL) lock them in the same order and cannot deadlock. Link by
 * link: a link with one group (most, on a long tail) gives its rows straight away, in key order.
 */
export function rollUp(groups: Group[], live: Set<string>, keepsMonth: (linkId: string, month: string) => boolean = () => true): RollUps {
  const sorted = groups.every((g, i) => i === 0 || compareIds(groups[i - 1]!.link_id, g.link_id) <= 0)
    ? groups
    : [...groups].sort((a, b) => compareIds(a.link_id, b.link_id));
  const out: RollUps = { increments: [], daily: [], breakdown: [], monthly: [] };
  for (let i = 0; i < sorted.length; ) {
    const linkId = sorted[i]!.link_id;
    let j = i + 1;
    while (j < sorted.length && sorted[j]!.link_id === linkId) j++;
    if (live.has(linkId)) {
      if (j === i + 1) rollUpOne(sorted[i]!, keepsMonth, out);
      else rollUpLink(sorted.slice(i, j), keepsMonth, out);
    }
    i = j;
  }
  return out;
}

function rollUpOne(g: Group, keepsMonth: (linkId: string, month: string) => boolean, out: RollUps): void {
  const n = g.clicks;
  if (n > g.counted) out.increments.push([g.link_id, n - g.counted, g.last_at]);
  out.daily.push({ link_id: g.link_id, day: g.day, clicks: n, bots: g.is_bot * n });
  for (const dim of BREAKDOWNS_BY_NAME) {
    const value = valueOf(g, dim);
    if (value !== null) out.breakdown.push({ link_id: g.link_id, day: g.day, dimension: dim, value, clicks: n });
  }
  const month = g.day.slice(0, 7);
  if (keepsMonth(g.link_id, month)) {
    for (const dim of BREAKDOWNS_BY_NAME) {
      const value = valueOf(g, dim);
      if (value !== null) out.monthly.push({ link_id: g.link_id, month, dimension: dim, value, clicks: n });
    }
  }
}

/** One link's rows from several groups, summed by key and sorted by it. */
function rollUpLink(groups: Group[], keepsMonth: (linkId: string, month: string) => boolean, out: RollUps): void {
  const linkId = groups[0]!.link_id;
  const daily = new Map<string, DailyRow>();
  const breakdown = new Map<string, BreakdownRow>();
  const monthly = new Map<string, MonthlyRow>();
  let increment = 0;
  let lastAt = 0;
  for (const g of groups) {
    const n = g.clicks;
    increment += n - g.counted;
    if (g.last_at > lastAt) lastAt = g.last_at;
    add(daily, g.day, () => ({ link_id: linkId, day: g.day, clicks: 0, bots: 0 }), n).bots += g.is_bot * n;
    const month = g.day.slice(0, 7);
    const toMonth = keepsMonth(linkId, month);
    for (const dim of BREAKDOWNS) {
      const value = valueOf(g, dim);
      if (value === null) continue;
      add(breakdown, `${g.day}\u0000${dim}\u0000${value}`, () => ({ link_id: linkId, day: g.day, dimension: dim, value, clicks: 0 }), n);
      if (toMonth) add(monthly, `${month}\u0000${dim}\u0000${value}`, () => ({ link_id: linkId, month, dimension: dim, value, clicks: 0 }), n);
    }
  }
  if (increment > 0) out.increments.push([linkId, increment, lastAt]);
  for (const r of byKey(daily)) out.daily.push(r);
  for (const r of byKey(breakdown)) out.breakdown.push(r);
  for (const r of byKey(monthly)) out.monthly.push(r);
}

function add<R extends { clicks: number }>(m: Map<string, R>, key: string, make: () => R, n: number): R {
  let r = m.get(key);
  if (r === undefined) {
    r = make();
    m.set(key, r);
  }
  r.clicks += n;
  return r;
}

function byKey<V>(m: Map<string, V>): V[] {
  return [...m.keys()].sort().map((k) => m.get(k) as V);
}
