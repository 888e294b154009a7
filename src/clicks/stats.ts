// Per-link statistics for a date range, read only from the roll-up tables (never from raw clicks), so
// the cost grows with (months + edge days) x distinct values, not with the number of clicks; the last
// 24 hours by hour are the exception, counted from one link's raw clicks of that day (last-day.ts).
import { type Expression, sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { LinkRow } from "../storage/schema.js";
import { PLAN_TABLE, can, requiredPlan } from "../accounts/plans.js";
import { type DayRange, type RangeName, daysOf, resolveRange, splitByMonth } from "./range.js";
import { DIMENSIONS, type Dimension, type Group } from "./click-groups.js";
import { ClickReads, type LinkKey, heldCount } from "./click-reads.js";
import { readSparklines } from "./sparklines.js";
import { lastDayOf, lastDayWindow, storedCells } from "./last-day.js";
import { type DestinationStats, destinationStats, groupDestinations, storedDestinations } from "./destinations.js";

/** Entries kept per breakdown (countries, devices, ...). */
export const TOP_N = 50;

export interface RangeQuery {
  from?: string | undefined;
  to?: string | undefined;
  range?: RangeName | undefined;
}

type Breakdown<K extends string> = Array<{ [P in K]: string } & { clicks: number }>;

export interface AdvancedStats extends DestinationStats {
  range_clicks: number;
  /** Every day of the range (day ranges). */
  daily?: Array<{ date: string; clicks: number }>;
  /** The 24 hours of range=24h, oldest first, each at its hour's start. */
  hourly?: Array<{ hour: string; clicks: number }>;
  countries: Breakdown<"country">;
  devices: Breakdown<"device">;
  browsers: Breakdown<"browser">;
  os: Breakdown<"os">;
  referrers: Breakdown<"referrer">;
  bots: number;
  bot_share: number;
}

export type LinkStats = {
  link_id: string;
  alias: string;
  /** The named range asked for, if any. */
  range?: RangeName;
  from: string;
  to: string;
  /** All-time clicks of the link (links.click_count). */
  total_clicks: number;
} & ({ advanced: true } & AdvancedStats | { advanced: false; message: string; required_plan: string });

export interface StatsDeps {
  db: Db;
  /** Which raw tables hold clicks (SQLite stages some); default sqlite. */
  dialect?: Dialect;
  clock: Clock;
  /** Stored roll-ups with the clicks held back from them (every statistic is fresh); default: what is stored. */
  reads?: ClickReads;
}

type Top = Array<{ value: string; clicks: number }>;

export class StatsService {
  private readonly reads: ClickReads;

  constructor(private readonly deps: StatsDeps) {
    this.reads = deps.reads ?? new ClickReads({ db: deps.db, heldBack: () => null });
  }

  /** Clicks per day of the last SPARKLINE_DAYS days (today last) of each link, from one read for them all. */
  sparklines(links: LinkKey[]): Promise<Map<string, number[]>> {
    return readSparklines(this.reads, links, this.deps.clock.now());
  }

  range(query: RangeQuery): DayRange {
    return resolveRange(query, this.deps.clock.now());
  }

  async forLink(link: LinkRow, plan: string, query: RangeQuery): Promise<LinkStats> {
    const range = this.range(query);
    const key = [{ id: link.id, num: Number(link.num) }];
    if (!can(plan, "advanced_stats")) {
      const counts = await this.reads.counts(key);
      const needed = requiredPlan("advanced_stats");
      return {
        ...this.base(link, range, counts.get(link.id) ?? Number(link.click_count), query.range),
        advanced: false,
        message: `The ${PLAN_TABLE[needed].label} plan adds daily clicks, countries, devices, browsers, operating systems, referrers, bot share and CSV export.`,
        required_plan: needed,
      };
    }
    if (query.range === "24h") return this.lastDay(link, range);
    // Stored rows and held-back groups in one view; the stored counts of the values the groups add to as
    // well, so that the top entries come out right (a value outside the stored top may move into it).
    const { value: stored, groups } = await this.reads.read(key, async (db, held) => {
      const inRange = held.filter((g) => g.day >= range.from && g.day <= range.to);
      const monthsThrough = await this.monthsThrough(db);
      const count = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirst();
      const tops = () =>
        inTurn(
          db,
          DIMENSIONS.map((d) => async () => {
            const values = [...new Set(inRange.map((g) => g[d]))];
            const top = await this.top(link.id, d, range, monthsThrough, TOP_N, db);
            return values.length === 0 ? top : [...top, ...(await this.top(link.id, d, range, monthsThrough, values.length, db, values))];
          }),
        );
      const [daily, byDimension, destinations] = db.isTransaction
        ? [await this.daily(link.id, range, db), await tops(), await storedDestinations(db, link.id, range)]
        : await Promise.all([this.daily(link.id, range, db), tops(), storedDestinations(db, link.id, range)]);
      return { clickCount: Number(count?.click_count ?? link.click_count), daily, tops: byDimension, destinations };
    });
    const inRange = groups.filter((g) => g.day >= range.from && g.day <= range.to);
    const daily = withHeldDaily(stored.daily, inRange);
    const by = Object.fromEntries(DIMENSIONS.map((d, i) => [d, withHeldTop(stored.tops[i] ?? [], inRange, d)])) as Record<Dimension, Top>;
    return {
      ...this.base(link, range, stored.clickCount + groups.reduce((n, g) => n + heldCount(g), 0), query.range),
      advanced: true,
      range_clicks: daily.clicks,
      daily: daily.series,
      countries: rename("country", by.country),
      devices: rename("device", by.device),
      browsers: rename("browser", by.browser),
      os: rename("os", by.os),
      referrers: rename("referrer", by.referrer),
      ...destinationStats(link, daily.series, [...stored.destinations, ...groupDestinations(inRange)]),
      bots: daily.bots,
      bot_share: daily.clicks === 0 ? 0 : Math.round((daily.bots / daily.clicks) * 10_000) / 10_000,
    };
  }

  private base(link: LinkRow, range: DayRange, totalClicks: number, name: RangeName | undefined) {
    return { link_id: link.id, alias: link.alias, ...(name ? { range: name } : {}), from: range.from, to: range.to, total_clicks: totalClicks };
  }

  /** range=24h: hour by hour and the breakdowns from the raw clicks of the window (last-day.ts), with the all-time count in the same view. */
  private async lastDay(link: LinkRow, range: DayRange): Promise<LinkStats> {
    const w = lastDayWindow(this.deps.clock.now());
    const { value, groups, unwritten } = await this.reads.read([{ id: link.id, num: Number(link.num) }], async (db) => {
      const count = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirst();
      return { clickCount: Number(count?.click_count ?? link.click_count), cells: await storedCells(db, this.deps.dialect ?? "sqlite", Number(link.num), w) };
    });
    const day = lastDayOf(w, value.cells, unwritten);
    const top = <K extends string>(key: K, values: Map<string, number>) => rename(key, ranked(values));
    return {
      ...this.base(link, range, value.clickCount + groups.reduce((n, g) => n + heldCount(g), 0), "24h"),
      advanced: true,
      range_clicks: day.clicks,
      hourly: day.hourly,
      countries: top("country", day.by.country),
      devices: top("device", day.by.device),
      browsers: top("browser", day.by.browser),
      os: top("os", day.by.os),
      referrers: top("referrer", day.by.referrer),
      ...destinationStats(link, day.perDay, day.others),
      bots: day.bots,
      bot_share: day.clicks === 0 ? 0 : Math.round((day.bots / day.clicks) * 10_000) / 10_000,
    };
  }

  /** The last month the monthly roll-up holds completely (later months are read from the daily one). */
  private async monthsThrough(db: Db): Promise<string> {
    const state = await db.selectFrom("click_rollup_state").select("months_through").where("id", "=", 1).executeTakeFirst();
    return state?.months_through ?? "";
  }

  /** The daily series, zero-filled for every day of the range, with the range's totals. */
  async daily(linkId: string, range: DayRange, db = this.deps.db): Promise<DailyStats> {
    const rows = await db
      .selectFrom("click_daily")
      .select(["day", "clicks", "bots"])
      .where("link_id", "=", linkId)
      .where("day", ">=", range.from)
      .where("day", "<=", range.to)
      .execute();
    const byDay = new Map(rows.map((r) => [r.day, Number(r.clicks)]));
    let clicks = 0;
    let bots = 0;
    for (const r of rows) {
      clicks += Number(r.clicks);
      bots += Number(r.bots);
    }
    return { series: daysOf(range).map((date) => ({ date, clicks: byDay.get(date) ?? 0 })), clicks, bots };
  }

  /** The most-clicked values of one dimension over the range (ties by value, for a stable order), or
   * those of `only`: whole months up to `monthsThrough` from the monthly roll-up, the other days from the daily one. */
  async top(linkId: string, dimension: Dimension, range: DayRange, monthsThrough: string, limit = TOP_N, db = this.deps.db, only?: string[]): Promise<Top> {
    const parts = splitByMonth(range, monthsThrough);
    const days = parts.days.map((d) =>
      db
        .selectFrom("click_breakdown")
        .select(["value", "clicks"])
        .where("link_id", "=", linkId)
        .where("dimension", "=", dimension)
        .where("day", ">=", d.from)
        .where("day", "<=", d.to)
        .$if(only !== undefined, (q) => q.where("value", "in", only!)),
    );
    const months = parts.months
      ? db
          .selectFrom("click_breakdown_month")
          .select(["value", "clicks"])
          .where("link_id", "=", linkId)
          .where("dimension", "=", dimension)
          .where("month", ">=", parts.months.from)
          .where("month", "<=", parts.months.to)
          .$if(only !== undefined, (q) => q.where("value", "in", only!))
      : null;
    const rest: Array<Expression<{ value: string; clicks: number }>> = [...days];
    const first = months ?? (rest.shift() as (typeof days)[number]);
    const union = rest.reduce<typeof first>((u, arm) => u.unionAll(arm), first);
    const rows = await db
      .selectFrom(union.as("u"))
      .select(["value", sql<number>`sum(clicks)`.as("clicks")])
      .groupBy("value")
      .orderBy(sql`sum(clicks)`, "desc")
      .orderBy("value", "asc")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ value: r.value, clicks: Number(r.clicks) }));
  }
}

/**
 * Runs the reads side by side on a pool, one after the other in a transaction (PostgreSQL's read of
 * clicks not committed yet): one connection runs one statement at a time, and node-postgres no longer
 * queues concurrent ones in its next major.
 */
function inTurn<T>(db: Db, reads: Array<() => Promise<T>>): Promise<T[]> {
  if (!db.isTransaction) return Promise.all(reads.map((r) => r()));
  return reads.reduce<Promise<T[]>>(async (done, r) => [...(await done), await r()], Promise.resolve([]));
}

type DailyStats = { series: Array<{ date: string; clicks: number }>; clicks: number; bots: number };

/** A breakdown's rows under the key the API names them by ("country", "device", ...). */
function rename<K extends string>(key: K, rows: Top): Breakdown<K> {
  return rows.map((r) => ({ [key]: r.value, clicks: r.clicks }) as { [P in K]: string } & { clicks: number });
}

/** The daily series and totals with the held-back groups (of the range's days) added. */
function withHeldDaily(stored: DailyStats, groups: Group[]): DailyStats {
  const series = stored.series.map((d) => ({ ...d }));
  const index = new Map(series.map((d, i) => [d.date, i]));
  let { clicks, bots } = stored;
  for (const g of groups) {
    const i = index.get(g.day);
    if (i === undefined) continue;
    series[i]!.clicks += g.clicks;
    clicks += g.clicks;
    bots += g.is_bot * g.clicks;
  }
  return { series, clicks, bots };
}

/** A breakdown's top TOP_N with the held-back groups added; `stored` holds the stored top and the stored counts of the groups' values. */
function withHeldTop(stored: Top, groups: Group[], dimension: Dimension): Top {
  if (groups.length === 0) return stored;
  const counts = new Map<string, number>();
  for (const r of stored) counts.set(r.value, r.clicks);
  for (const g of groups) counts.set(g[dimension], (counts.get(g[dimension]) ?? 0) + g.clicks);
  return ranked(counts);
}

/** The TOP_N values with the most clicks, ties by value (the order the stored reads use). */
function ranked(counts: Map<string, number>): Top {
  return [...counts]
    .map(([value, clicks]) => ({ value, clicks }))
    .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, TOP_N);
}
