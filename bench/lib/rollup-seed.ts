// Clicks seeded as the writers would leave them, straight into the database (bench/stats-account.ts,
// bench/big.ts): one link's clicks simulated click by click in memory and turned into its roll-up rows
// (daily, hourly, breakdowns, compacted months) and its raw rows inside the retention, then written
// with prepared inserts in one transaction (SQLite) or unnest() statements (PostgreSQL).
import { sql } from "kysely";
import type { Storage } from "../../src/storage/db.js";
import { DIMENSIONS } from "../../src/clicks/click-groups.js";
import { rng } from "./random.js";

const H = 3_600_000;
const DAY = 86_400_000;

/** The values of each described dimension, most common first (picked with `zipf`). */
export const VALUES: Record<(typeof DIMENSIONS)[number], string[]> = {
  country: "US DE FR GB BR IN JP CA ES IT NL SE PL MX AU KR TR AR CH BE AT NO DK FI IE PT CZ RO HU GR".split(" "),
  device: ["mobile", "desktop", "tablet", "bot"],
  os: ["iOS", "Android", "Windows", "Mac OS", "Linux", "unknown"],
  browser: ["Mobile Safari", "Chrome", "Safari", "Firefox", "Edge", "Samsung Browser", "bot"],
  referrer: [
    "direct",
    "t.co",
    "www.google.com",
    "www.facebook.com",
    "l.instagram.com",
    "news.ycombinator.com",
    ...Array.from({ length: 30 }, (_, i) => `blog${i}.example.net`),
  ],
};

type Totals = { clicks: number; bots: number; visitors: number; qr: number };
export type Rows = { daily: unknown[][]; hourly: unknown[][]; breakdown: unknown[][]; monthly: unknown[][]; raw: unknown[][] };
export const noRows = (): Rows => ({ daily: [], hourly: [], breakdown: [], monthly: [], raw: [] });

/** One link's clicks to simulate. */
export interface LinkClicks {
  id: string;
  num: number;
  /** How many. */
  n: number;
  seed: number;
  /** A click's time (epoch ms), drawn with the link's generator. */
  at: (r: () => number) => number;
  /** Raw rows for the clicks from this time on (the retention window). */
  rawSince: number;
  /** click_breakdown_month rows for the months up to this one ("YYYY-MM", compacted); "" for none. */
  monthsThrough?: string;
}

const dayStrings = new Map<number, string>();
/** "YYYY-MM-DD" of a day number (days since 1970), each day's string made once. */
function dayString(day: number): string {
  let s = dayStrings.get(day);
  if (s === undefined) {
    s = new Date(day * DAY).toISOString().slice(0, 10);
    dayStrings.set(day, s);
  }
  return s;
}

/** What a breakdown row counts, by number: the dimension (its index in DIMENSIONS; SOURCE for QR scans) and the value's index. */
const SOURCE = DIMENSIONS.length;
const dimensionName = (k: number) => (k === SOURCE ? "source" : DIMENSIONS[k]!);
const valueName = (k: number, v: number) => (k === SOURCE ? "qr" : VALUES[DIMENSIONS[k]!][v]!);
const LISTS = DIMENSIONS.map((d) => VALUES[d].length);

/**
 * One link's clicks rolled up as the writers do (a click is a new visitor 7 times in 10, a QR scan 1 in 10), and
 * the time of its latest click. Keys are numbers while counting (day or month, dimension, value), strings at the end.
 */
export function linkRows(l: LinkClicks): Rows & { lastAt: number } {
  const r = rng(l.seed);
  const through = l.monthsThrough ?? "";
  const daily = new Map<number, Totals>();
  const hourly = new Map<number, Totals>();
  const breakdown = new Map<number, [number, number]>();
  const monthly = new Map<number, [number, number]>();
  const monthOf = new Map<number, string>();
  const raw: unknown[][] = [];
  const picked = new Array<number>(DIMENSIONS.length);
  let lastAt = 0;
  const add = (m: Map<number, Totals>, key: number, bot: number, v: number, qr: number) => {
    const t = m.get(key);
    if (t === undefined) m.set(key, { clicks: 1, bots: bot, visitors: v, qr });
    else {
      t.clicks++;
      t.bots += bot;
      t.visitors += v;
      t.qr += qr;
    }
  };
  const count = (m: Map<number, [number, number]>, key: number, visitor: number) => {
    const b = m.get(key);
    if (b === undefined) m.set(key, [1, visitor]);
    else {
      b[0]++;
      b[1] += visitor;
    }
  };
  for (let i = 0; i < l.n; i++) {
    const at = l.at(r);
    if (at > lastAt) lastAt = at;
    const day = Math.floor(at / DAY);
    let month = monthOf.get(day);
    if (month === undefined) monthOf.set(day, (month = dayString(day).slice(0, 7)));
    // Months are numbered by their first day: the key of a month's rows.
    const toMonth = month <= through ? Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1) / DAY : -1;
    const hour = at - (at % H);
    // As zipf() picks (random.ts), by index.
    for (let k = 0; k < LISTS.length; k++) picked[k] = Math.min(LISTS[k]! - 1, Math.floor(LISTS[k]! * r() ** 3));
    const bot = picked[1] === VALUES.device.indexOf("bot") ? 1 : 0;
    const visitor = r() < 0.7 ? 1 : 0;
    const qr = r() < 0.1 ? 1 : 0;
    add(daily, day, bot, visitor, qr);
    add(hourly, hour, bot, visitor, qr);
    for (let k = 0; k <= SOURCE; k++) {
      if (k === SOURCE && !qr) break;
      const v = k === SOURCE ? 0 : picked[k]!;
      count(breakdown, day * 512 + k * 64 + v, visitor);
      if (toMonth >= 0) count(monthly, toMonth * 512 + k * 64 + v, visitor);
    }
    if (at >= l.rawSince) raw.push([l.num, at, ...picked.map((v, k) => valueName(k, v)), bot, 0, null, visitor, qr]);
  }
  const rowOf = (key: number, [c, v]: [number, number], time: (day: number) => string) => {
    const k = (key >> 6) & 7;
    return [l.id, time(Math.floor(key / 512)), dimensionName(k), valueName(k, key & 63), c, v];
  };
  return {
    daily: [...daily].map(([day, t]) => [l.id, dayString(day), t.clicks, t.bots, t.visitors, t.qr]),
    hourly: [...hourly].map(([hour, t]) => [l.id, hour, t.clicks, t.bots, t.visitors, t.qr]),
    breakdown: [...breakdown].map(([key, t]) => rowOf(key, t, dayString)),
    monthly: [...monthly].map(([key, t]) => rowOf(key, t, (d) => dayString(d).slice(0, 7))),
    raw,
    lastAt,
  };
}

/** Clicks spread evenly over the `days` days before `end`. */
export const evenly =
  (end: number, days: number) =>
  (r: () => number): number =>
    end - days * DAY + Math.floor(r() * days * DAY);

const TOTALS = ["clicks", "bots", "visitors", "qr"] as const;
const BIG4 = ["bigint", "bigint", "bigint", "bigint"] as const;
export const TABLES = {
  daily: ["click_daily", ["link_id", "day", ...TOTALS], ["text", "text", ...BIG4]],
  hourly: ["click_hourly", ["link_id", "hour", ...TOTALS], ["text", "bigint", ...BIG4]],
  breakdown: ["click_breakdown", ["link_id", "day", "dimension", "value", "clicks", "visitors"], ["text", "text", "text", "text", "bigint", "bigint"]],
  monthly: ["click_breakdown_month", ["link_id", "month", "dimension", "value", "clicks", "visitors"], ["text", "text", "text", "text", "bigint", "bigint"]],
  ownerDaily: ["owner_daily", ["owner_id", "day", ...TOTALS], ["text", "text", ...BIG4]],
  ownerHourly: ["owner_hourly", ["owner_id", "hour", ...TOTALS], ["text", "bigint", ...BIG4]],
  ownerBreakdown: ["owner_breakdown", ["owner_id", "day", "dimension", "value", "clicks", "visitors"], ["text", "text", "text", "text", "bigint", "bigint"]],
  raw: [
    "clicks",
    ["link_num", "at", "country", "device", "os", "browser", "referrer", "is_bot", "counted", "destination", "new_visitor", "qr"],
    ["bigint", "bigint", "text", "text", "text", "text", "text", "int", "int", "text", "int", "int"],
  ],
} as const;

/** Writes rows of one table: prepared inserts in one transaction (SQLite), unnest() of 20,000 rows (PostgreSQL). */
export async function insertRows(storage: Storage, kind: keyof typeof TABLES, rows: unknown[][]): Promise<void> {
  const [table, cols, types] = TABLES[kind];
  if (rows.length === 0) return;
  if (storage.sqlite) {
    const st = storage.sqlite.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
    storage.sqlite.transaction(() => rows.forEach((r) => st.run(r)))();
    return;
  }
  for (let i = 0; i < rows.length; i += 50_000) {
    const part = rows.slice(i, i + 50_000);
    const arrays = cols.map((_, k) => sql`${arrayLiteral(part, k)}::${sql.raw(types[k] as string)}[]`);
    await sql`INSERT INTO ${sql.table(table)} (${sql.join(cols.map((c) => sql.ref(c)))}) SELECT * FROM unnest(${sql.join(arrays)})`.execute(storage.db);
  }
}

/**
 * A column of rows as PostgreSQL's array text, made here rather than by the driver's generic escaping (the
 * load's cost): numbers as they are, strings quoted (the generated ones hold no quote or backslash), NULL.
 */
export function arrayLiteral(rows: unknown[][], k: number): string {
  const out = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const v = rows[i]![k];
    out[i] = v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : `"${v as string}"`;
  }
  return `{${out.join(",")}}`;
}
