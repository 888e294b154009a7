// One flush worth of clicks, described (UA, country, referrer) and aggregated into the rows each
// table needs: raw click rows, per-link click_count increments and the roll-ups, in key order.
import type { Selectable } from "kysely";
import type { ClickBreakdownMonthTable, ClickBreakdownTable, ClickDailyTable, ClicksTable } from "../storage/schema.js";
import { type ClickBatch, FIELD, WIDTH } from "./click-buffer.js";
import { type ClickDimensions, type CountryResolver, describeUserAgent, referrerHost } from "./describe.js";

/** A raw click row as stored (no id yet), with its link's id (what the roll-ups are keyed by). */
export type ClickRow = Omit<Selectable<ClicksTable>, "id"> & { link_id: string };
export type DailyRow = Selectable<ClickDailyTable>;
export type BreakdownRow = Selectable<ClickBreakdownTable>;
export type MonthlyRow = Selectable<ClickBreakdownMonthTable>;

/** The values of one click that the roll-ups are grouped by. */
export interface Group extends Omit<ClickRow, "at"> {
  /** Link, day and values in one string: the group's key in a map of groups. */
  key: string;
  day: string;
  clicks: number;
  /** Clicks already added to links.click_count (click-limited links). */
  counted: number;
}

export interface DescribedBatch {
  /** By link number, each link's clicks in the order they came (time order). */
  rows: ClickRow[];
  /** Each row's group (rowGroups[i] holds rows[i]). */
  rowGroups: Group[];
  /** In the rows' order. */
  groups: Group[];
  /** The batch's distinct link ids, in the rows' order. */
  linkIds: string[];
}

/** The breakdowns kept per link and day (and month). */
export const DIMENSIONS = ["country", "device", "os", "browser", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** UTC day of an instant; consecutive clicks share a day, so the last one is remembered. */
class DayOf {
  private start = 0;
  private end = -1;
  private day = "";
  of(ms: number): string {
    if (ms < this.start || ms >= this.end) {
      this.day = new Date(ms).toISOString().slice(0, 10);
      this.start = Date.parse(this.day);
      this.end = this.start + 86_400_000;
    }
    return this.day;
  }
}

/**
 * Describes every click (each distinct user agent, referrer and address once per batch) and groups
 * identical ones (a few groups per link and flush, typically). The rows come out in link number
 * order: a batch's index entries (link_num, at) then go into the clicks index in key order,
 * neighbours on the same pages, instead of one random descent and page split each (about half the
 * cost of a raw row on a long tail of links).
 */
export function describeBatch(batch: ClickBatch, countries: CountryResolver): DescribedBatch {
  const f = batch.fields;
  const s = batch.strings;
  const agents = new Map<number, ClickDimensions>();
  const referrers = new Map<number, string>();
  const places = new Map<number, string>();
  /** Each link's rows. */
  const byLink = new Map<number, ClickRow[]>();
  for (let i = 0, o = 0; i < batch.length; i++, o += WIDTH) {
    const ua = f[o + FIELD.userAgent] as number;
    let d = agents.get(ua);
    if (d === undefined) agents.set(ua, (d = describeUserAgent(s[ua] as string)));
    const ref = f[o + FIELD.referer] as number;
    let referrer = referrers.get(ref);
    if (referrer === undefined) referrers.set(ref, (referrer = referrerHost(s[ref] as string)));
    const ip = f[o + FIELD.ip] as number;
    const header = f[o + FIELD.country] as number;
    // One number for the (country header, address) pair: a batch holds far fewer than 2^20 strings.
    const place = (header + 1) * 1_048_576 + ip;
    let country = places.get(place);
    if (country === undefined) places.set(place, (country = countries.resolve(header < 0 ? null : (s[header] as string), s[ip] as string)));
    const num = f[o + FIELD.linkNum] as number;
    const row: ClickRow = {
      link_id: batch.links[i] as string,
      link_num: num,
      at: f[o + FIELD.at] as number,
      country,
      device: d.device,
      os: d.os,
      browser: d.browser,
      referrer,
      is_bot: d.isBot ? 1 : 0,
      counted: f[o + FIELD.counted] as number,
    };
    const same = byLink.get(num);
    if (same === undefined) byLink.set(num, [row]);
    else same.push(row);
  }
  const rows: ClickRow[] = [];
  const linkIds: string[] = [];
  for (const num of [...byLink.keys()].sort((a, b) => a - b)) {
    const list = byLink.get(num)!;
    linkIds.push(list[0]!.link_id);
    for (const row of list) rows.push(row);
  }
  const groups = new Map<string, Group>();
  const rowGroups: Group[] = [];
  addGroups(groups, rows, rowGroups);
  return { rows, rowGroups, groups: [...groups.values()], linkIds };
}

type Dims = Pick<ClickRow, "country" | "device" | "os" | "browser" | "referrer" | "is_bot">;

function groupKey(linkId: string, day: string, d: Dims): string {
  return `${linkId}\u0000${day}\u0000${d.country}\u0000${d.device}\u0000${d.os}\u0000${d.browser}\u0000${d.referrer}\u0000${d.is_bot}`;
}

function sameValues(g: Group, row: ClickRow): boolean {
  return g.country === row.country && g.device === row.device && g.os === row.os && g.browser === row.browser && g.referrer === row.referrer && g.is_bot === row.is_bot;
}

/**
 * Adds click rows to a map of groups; a row like the one before it (same link, day and values) joins
 * its group without a lookup. `rowGroups`, when given, receives each row's group in row order.
 */
export function addGroups(into: Map<string, Group>, rows: Iterable<ClickRow>, rowGroups?: Group[]): void {
  const days = new DayOf();
  let last: Group | undefined;
  for (const row of rows) {
    const day = days.of(row.at);
    let g = last !== undefined && last.link_id === row.link_id && last.day === day && sameValues(last, row) ? last : undefined;
    if (g === undefined) {
      const key = groupKey(row.link_id, day, row);
      g = into.get(key);
      if (g === undefined) {
        g = { key, link_id: row.link_id, link_num: row.link_num, day, country: row.country, device: row.device, os: row.os, browser: row.browser, referrer: row.referrer, is_bot: row.is_bot, clicks: 0, counted: 0 };
        into.set(key, g);
      }
    }
    g.clicks++;
    g.counted += row.counted;
    rowGroups?.push(g);
    last = g;
  }
}

/** Adds groups (from one batch) into a longer-lived map of groups, which takes them over. */
export function mergeGroups(into: Map<string, Group>, groups: Iterable<Group>): void {
  for (const g of groups) {
    const have = into.get(g.key);
    if (have === undefined) into.set(g.key, g);
    else {
      have.clicks += g.clicks;
      have.counted += g.counted;
    }
  }
}

/** [link id, clicks to add to links.click_count] of the live links' groups, by link id. */
export function increments(groups: Iterable<Group>, live: Set<string>): [string, number][] {
  const m = new Map<string, number>();
  for (const g of groups) {
    if (live.has(g.link_id) && g.clicks > g.counted) m.set(g.link_id, (m.get(g.link_id) ?? 0) + g.clicks - g.counted);
  }
  return [...m.keys()].sort().map((id) => [id, m.get(id) as number]);
}

export interface RollUps {
  /** [link id, clicks to add to links.click_count], by link id. */
  increments: [string, number][];
  daily: DailyRow[];
  breakdown: BreakdownRow[];
  monthly: MonthlyRow[];
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

/**
 * Roll-up rows of the groups whose link still exists; monthly rows only where `keepsMonth` says that
 * month's monthly rows are kept up to date (SQLite compacts the others from the daily rows later).
 * Rows come in key order so that concurrent flushes (several instances on one PostgreSQL) lock them
 * in the same order and cannot deadlock.
 */
export function rollUp(groups: Group[], live: Set<string>, keepsMonth: (linkId: string, month: string) => boolean = () => true): RollUps {
  const daily = new Map<string, DailyRow>();
  const breakdown = new Map<string, BreakdownRow>();
  const monthly = new Map<string, MonthlyRow>();
  for (const g of groups) {
    if (!live.has(g.link_id)) continue;
    const n = g.clicks;
    const dk = `${g.link_id}\u0000${g.day}`;
    add(daily, dk, () => ({ link_id: g.link_id, day: g.day, clicks: 0, bots: 0 }), n).bots += g.is_bot * n;
    const month = g.day.slice(0, 7);
    const toMonth = keepsMonth(g.link_id, month);
    for (const dim of DIMENSIONS) {
      const value = g[dim];
      add(breakdown, `${dk}\u0000${dim}\u0000${value}`, () => ({ link_id: g.link_id, day: g.day, dimension: dim, value, clicks: 0 }), n);
      if (toMonth) add(monthly, `${g.link_id}\u0000${month}\u0000${dim}\u0000${value}`, () => ({ link_id: g.link_id, month, dimension: dim, value, clicks: 0 }), n);
    }
  }
  return {
    increments: increments(groups, live),
    daily: byKey(daily),
    breakdown: byKey(breakdown),
    monthly: byKey(monthly),
  };
}
