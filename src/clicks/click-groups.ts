// A batch described and grouped: raw click rows and groups (identical clicks of a link and hour), the
// groups of clicks not committed yet for reads (groupsOf); group-set.ts holds groups between roll-ups;
// rollup-rows.ts turns groups into roll-up rows. Terms: README.md.
import type { Selectable } from "kysely";
import type { ClickBreakdownMonthTable, ClickBreakdownTable, ClickDailyTable, ClickHourlyTable, ClicksTable } from "../storage/schema.js";
import { type ClickBatch, FIELD, WIDTH } from "./click-buffer.js";
import type { CountryResolver } from "./describe.js";
import { UTM_KEYS } from "./utm-values.js";
import { type Values, describer, placeOf, sameValues } from "./click-values.js";

/**
 * A raw click row as stored (no id yet), with its link's id (what the roll-ups are keyed by) and, for a visit of
 * a link that tracks conversions, its click id (stored by the tracked-clicks listener, not in `clicks`).
 */
export type ClickRow = Omit<Selectable<ClicksTable>, "id"> & { link_id: string; click_id?: string | null; app?: string | null };
/** A raw click row's columns, in the order the writers bind or copy them (the id comes from its sequence). */
export const CLICK_COLUMNS = [
  "link_num",
  "at",
  "country",
  "device",
  "os",
  "browser",
  "referrer",
  "is_bot",
  "counted",
  "destination",
  "new_visitor",
  "qr",
  "region",
  "city",
  "referrer_url",
  "utm",
] as const;

/** A raw click row's values in CLICK_COLUMNS order. */
export function clickValues(r: ClickRow): Array<string | number | null> {
  return [
    r.link_num,
    r.at,
    r.country,
    r.device,
    r.os,
    r.browser,
    r.referrer,
    r.is_bot,
    r.counted,
    r.destination,
    r.new_visitor,
    r.qr,
    r.region,
    r.city,
    r.referrer_url,
    r.utm,
  ];
}

export type DailyRow = Selectable<ClickDailyTable>;
export type BreakdownRow = Selectable<ClickBreakdownTable>;
export type MonthlyRow = Selectable<ClickBreakdownMonthTable>;
export type HourlyRow = Selectable<ClickHourlyTable>;

/** The values of one click that the roll-ups are grouped by. */
export interface Group extends Omit<ClickRow, "at" | "new_visitor" | "click_id" | "app"> {
  day: string;
  clicks: number;
  /** Clicks already added to links.click_count (click-limited links). */
  counted: number;
  /** Clicks that were their visitor's first of the UTC day on the link (known once written: 0 for clicks not written yet). */
  visitors: number;
  /** The latest click's time (epoch ms), what links.last_click_at moves up to; 0 where not tracked (groupsOf: reads do not use it). */
  last_at: number;
  /** Start of the clicks' UTC hour (epoch ms): groups are per link, hour and values. */
  hour: number;
  /** Groups of clicks not written yet (groupsOf): who made them, so that a read can tell their first visits (visitors.ts). */
  visits?: VisitOf[];
}

/** A visitor of clicks not written yet: the day, address and agent its key is made of, and its first click's place in the batch. */
export interface VisitOf {
  day: string;
  ip: string;
  userAgent: string;
  order: number;
}

export interface DescribedBatch {
  /** By link number, each link's clicks in the order they came (time order); new_visitor is set by the writer (markNewVisitors). */
  rows: ClickRow[];
  /** Each row's visitor key (visitors.ts), 0 where the batch was described without keys. */
  visitorKeys: number[];
  /** Each row's group. */
  rowGroups: Group[];
  /** Each row's values, as a number: rows with the same number share every value (Values). */
  rowValues: number[];
  /** In the rows' order. */
  groups: Group[];
  /** The batch's distinct link ids, in the rows' order. */
  linkIds: string[];
}

/** The breakdowns described from a click, kept per link and day (and month). */
export const DIMENSIONS = ["country", "device", "os", "browser", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/**
 * The finer breakdowns, kept only for clicks that have the value (no row otherwise, so that ordinary
 * clicks pay nothing): region and city (GeoIP City database), referrer URL, the short URL's UTM values.
 */
export const FINER = ["region", "city", "referrer_url", ...UTM_KEYS] as const;
export type Finer = (typeof FINER)[number];
/**
 * Every breakdown kept: the described ones, the finer ones, and where the clicks went (rows only for clicks
 * not sent to the link's url: a link without rules or split has none; its "default" is its clicks minus those rows).
 */
export const BREAKDOWNS = [...DIMENSIONS, ...FINER, "destination", "source"] as const;
export type BreakdownDimension = (typeof BREAKDOWNS)[number];

export const HOUR_MS = 3_600_000;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** UTC day of an instant; consecutive clicks share a day, so the last one is remembered. */
export class DayOf {
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

export function hourOf(ms: number): number {
  return ms - (ms % HOUR_MS);
}

/** The group of `groups` (one link's) for an hour and values, or undefined: a link has a few groups at most. */
export function findGroup(groups: Group[], hour: number, v: Values): Group | undefined {
  for (const g of groups) if (g.hour === hour && sameValues(g, v)) return g;
  return undefined;
}

export function newGroup(linkId: string, linkNum: number, day: string, hour: number, v: Values): Group {
  return {
    link_id: linkId,
    link_num: linkNum,
    day,
    hour,
    country: v.country,
    device: v.device,
    os: v.os,
    browser: v.browser,
    referrer: v.referrer,
    is_bot: v.is_bot,
    destination: v.destination,
    qr: v.qr,
    region: v.region,
    city: v.city,
    referrer_url: v.referrer_url,
    utm: v.utm,
    clicks: 0,
    counted: 0,
    visitors: 0,
    last_at: 0,
  };
}

/**
 * Describes every click (each distinct user agent, referrer and address once per batch) and groups
 * identical ones (a few groups per link and flush, typically). The rows come out in link number
 * order: a batch's index entries (link_num, at) then go into the clicks index in key order,
 * neighbours on the same pages, instead of one random descent and page split each (about half the
 * cost of a raw row on a long tail of links). Groups are found per link by comparing values, not by
 * building a key string per click: on a long tail nearly every click starts a group of its own.
 */
export function describeBatch(batch: ClickBatch, countries: CountryResolver, keys: VisitorKeyOf | null = null): DescribedBatch {
  const f = batch.fields;
  const describe = describer(batch.strings, countries);
  /** Each link's clicks (indexes into rowOf), and each click's row and values. */
  const byLink = new Map<number, number[]>();
  const rowOf: ClickRow[] = new Array(batch.length);
  const valuesOf = new Int32Array(batch.length);
  /** The batch's distinct values, by their content. */
  const valueIds = new Map<string, number>();
  // Consecutive clicks mostly share their agent, referrer and place: their values are then the last ones.
  let lastUa = -1;
  let lastRef = -1;
  let lastPlace = -1;
  let lastDestination = -1;
  let lastQr = -1;
  let lastUtm = -1;
  let v: Values = {
    country: "",
    device: "",
    os: "",
    browser: "",
    referrer: "",
    is_bot: 0,
    destination: null,
    qr: 0,
    region: null,
    city: null,
    referrer_url: null,
    utm: null,
  };
  let vid = -1;
  for (let i = 0, o = 0; i < batch.length; i++, o += WIDTH) {
    const ua = f[o + FIELD.userAgent] as number;
    const ref = f[o + FIELD.referer] as number;
    const ip = f[o + FIELD.ip] as number;
    const place = placeOf(f[o + FIELD.country] as number, ip);
    const destination = f[o + FIELD.destination] as number;
    const qr = f[o + FIELD.qr] as number;
    const utm = f[o + FIELD.utm] as number;
    if (ua !== lastUa || ref !== lastRef || place !== lastPlace || destination !== lastDestination || qr !== lastQr || utm !== lastUtm) {
      v = describe(ua, ref, place, destination, qr, utm);
      const content = `${v.country}\u0000${v.device}\u0000${v.os}\u0000${v.browser}\u0000${v.referrer}\u0000${v.is_bot}\u0000${v.destination}\u0000${v.qr}\u0000${v.region}\u0000${v.city}\u0000${v.referrer_url}\u0000${v.utm}`;
      vid = valueIds.get(content) ?? valueIds.size;
      valueIds.set(content, vid);
      lastUa = ua;
      lastRef = ref;
      lastPlace = place;
      lastDestination = destination;
      lastQr = qr;
      lastUtm = utm;
    }
    const num = f[o + FIELD.linkNum] as number;
    rowOf[i] = {
      link_id: batch.links[i] as string,
      link_num: num,
      at: f[o + FIELD.at] as number,
      country: v.country,
      device: v.device,
      os: v.os,
      browser: v.browser,
      referrer: v.referrer,
      is_bot: v.is_bot,
      counted: f[o + FIELD.counted] as number,
      destination: v.destination,
      new_visitor: 0,
      qr: v.qr,
      region: v.region,
      city: v.city,
      referrer_url: v.referrer_url,
      utm: v.utm,
      click_id: f[o + FIELD.clickId] === -1 ? null : (batch.strings[f[o + FIELD.clickId] as number] as string),
      app: f[o + FIELD.app] === -1 ? null : (batch.strings[f[o + FIELD.app] as number] as string),
    };
    valuesOf[i] = vid;
    const same = byLink.get(num);
    if (same === undefined) byLink.set(num, [i]);
    else same.push(i);
  }
  return grouped(batch, byLink, rowOf, valuesOf, keys);
}

/** The described rows in link number order, grouped per link, hour and values, with their visitor keys. */
function grouped(batch: ClickBatch, byLink: Map<number, number[]>, rowOf: ClickRow[], valuesOf: Int32Array, keys: VisitorKeyOf | null): DescribedBatch {
  const f = batch.fields;
  const rows: ClickRow[] = [];
  const rowValues: number[] = [];
  const rowGroups: Group[] = [];
  const visitorKeys: number[] = [];
  const groups: Group[] = [];
  const linkIds: string[] = [];
  const days = new DayOf();
  const linkGroups: Group[] = [];
  for (const num of [...byLink.keys()].sort((a, b) => a - b)) {
    const list = byLink.get(num)!;
    const linkId = rowOf[list[0]!]!.link_id;
    linkIds.push(linkId);
    linkGroups.length = 0;
    for (const i of list) {
      const row = rowOf[i]!;
      const day = days.of(row.at);
      const hour = hourOf(row.at);
      let g = findGroup(linkGroups, hour, row);
      if (g === undefined) {
        g = newGroup(linkId, num, day, hour, row);
        linkGroups.push(g);
        groups.push(g);
      }
      g.clicks++;
      g.counted += row.counted;
      if (row.at > g.last_at) g.last_at = row.at;
      rows.push(row);
      rowValues.push(valuesOf[i]!);
      rowGroups.push(g);
      const o = i * WIDTH;
      visitorKeys.push(keys === null ? 0 : keys(day, num, f[o + FIELD.ip] as number, f[o + FIELD.userAgent] as number));
    }
  }
  return { rows, rowValues, rowGroups, visitorKeys, groups, linkIds };
}

/** A click's visitor key from its day, link number and the batch's indexes of its address and user agent (visitors.ts). */
export type VisitorKeyOf = (day: string, linkNum: number, ip: number, userAgent: number) => number;

/** A tally of identical clicks (same link, raw user agent, referrer, place, UTC hour, destination, QR flag and UTM values): the index of the first, and how many. */
interface Tally {
  hour: number;
  destination: number;
  qr: number;
  utm: number;
  i: number;
  clicks: number;
  counted: number;
}

function child<K, V>(m: Map<K, V>, key: K, make: () => V): V {
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = make()));
  return v;
}

/**
 * The groups of the clicks of a batch (or of a batch being filled) that belong to the links numbered
 * in `nums`, as describeBatch would make them (their visitors are counted once written): what a read
 * adds for clicks not committed yet. Reads are rare, clicks are not, so
 * this does the least per click: a lookup of its link number, and for a click of a link read, a tally
 * by its raw numbers (link, user agent and referrer, place, then hour) in maps keyed by numbers (no
 * string per click), so that each distinct combination is described once.
 */
export function groupsOf(batch: ClickBatch, nums: ReadonlySet<number> | null, countries: CountryResolver): Group[] {
  const f = batch.fields;
  const tallies = new Map<number, Map<number, Map<number, Tally[]>>>();
  const all: Tally[] = [];
  for (let i = 0, o = 0; i < batch.length; i++, o += WIDTH) {
    const num = f[o + FIELD.linkNum] as number;
    if (nums !== null && !nums.has(num)) continue;
    const agentAndReferrer = (f[o + FIELD.userAgent] as number) * 1_048_576 + (f[o + FIELD.referer] as number);
    const list = child(
      child(
        child(tallies, num, () => new Map<number, Map<number, Tally[]>>()),
        agentAndReferrer,
        () => new Map<number, Tally[]>(),
      ),
      placeOf(f[o + FIELD.country] as number, f[o + FIELD.ip] as number),
      () => [],
    );
    const hour = Math.floor((f[o + FIELD.at] as number) / HOUR_MS);
    const destination = f[o + FIELD.destination] as number;
    const qr = f[o + FIELD.qr] as number;
    const utm = f[o + FIELD.utm] as number;
    let t = list.find((x) => x.hour === hour && x.destination === destination && x.qr === qr && x.utm === utm);
    if (t === undefined) {
      list.push((t = { hour, destination, qr, utm, i, clicks: 0, counted: 0 }));
      all.push(t);
    }
    t.clicks++;
    t.counted += f[o + FIELD.counted] as number;
  }
  const describe = describer(batch.strings, countries);
  const byLink = new Map<number, Group[]>();
  const groups: Group[] = [];
  for (const t of all) {
    const o = t.i * WIDTH;
    const num = f[o + FIELD.linkNum] as number;
    const v = describe(
      f[o + FIELD.userAgent] as number,
      f[o + FIELD.referer] as number,
      placeOf(f[o + FIELD.country] as number, f[o + FIELD.ip] as number),
      t.destination,
      t.qr,
      t.utm,
    );
    const day = dayOf(f[o + FIELD.at] as number);
    const hour = t.hour * HOUR_MS;
    const list = child(byLink, num, () => []);
    let g = findGroup(list, hour, v);
    if (g === undefined) {
      g = { ...newGroup(batch.links[t.i] as string, num, day, hour, v), visits: [] };
      list.push(g);
      groups.push(g);
    }
    g.clicks += t.clicks;
    g.counted += t.counted;
    g.visits!.push({
      day,
      ip: batch.strings[f[o + FIELD.ip] as number] as string,
      userAgent: batch.strings[f[o + FIELD.userAgent] as number] as string,
      order: t.i,
    });
  }
  return groups;
}

/** Ids in code-unit order: the order roll-ups are written and recorded in. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
