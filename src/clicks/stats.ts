// Per-link statistics for a period, read only from the roll-up tables (never from raw clicks), so the
// cost grows with the period's hours (or days) and distinct values, not with the number of clicks; the
// last 24 hours' breakdowns are the exception, counted from the link's raw clicks of the window (last-day.ts).
import { sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { LinkRow } from "../storage/schema.js";
import { PLAN_TABLE, can, requiredPlan } from "../accounts/plans.js";
import { type DayRange, daysOf, splitByMonth } from "./range.js";
import { DIMENSIONS, FINER, type Dimension, type Group } from "./click-groups.js";
import { type FinerStats, type FinerTops, finerStats, finerValues, topFiner } from "./finer.js";
import { ClickReads, type LinkKey, heldCount } from "./click-reads.js";
import { readSparklines } from "./sparklines.js";
import { lastDayOf, lastDayWindow, storedCells } from "./last-day.js";
import { type DestinationStats, destinationStats, groupDestinations, storedDestinations } from "./destinations.js";
import { type Period, type PeriodQuery, type RangeName, resolvePeriod } from "./period.js";
import { type RollupSource, type SeriesPoint, type Totals, change, linkRows, seriesOf, storedSeries } from "./series.js";

/** Entries kept per breakdown (countries, devices, ...). */
export const TOP_N = 50;

export type RangeQuery = PeriodQuery;

export type Breakdown<K extends string> = Array<{ [P in K]: string } & { clicks: number; visitors: number }>;

/** What a period's answer holds (a link's statistics, an account's analytics). */
export interface PeriodStats extends FinerStats {
  granularity: Period["granularity"];
  range_clicks: number;
  range_visitors: number;
  range_qr: number;
  previous?: { from: string; to: string; clicks: number; visitors: number; qr: number };
  change?: { clicks: number | null; visitors: number | null; qr: number | null };
  series: Array<{ start: string; label: string; clicks: number; visitors: number; qr: number }>;
  sources: Array<{ source: "link" | "qr"; clicks: number; visitors: number }>;
  countries: Breakdown<"country">;
  devices: Breakdown<"device">;
  browsers: Breakdown<"browser">;
  os: Breakdown<"os">;
  referrers: Breakdown<"referrer">;
  bots: number;
  bot_share: number;
}

export interface AdvancedStats extends PeriodStats, DestinationStats {
  /** Every day of the period (day points). */
  daily?: Array<{ date: string; clicks: number; visitors: number; qr: number }>;
  /** The 24 hours of range=24h, oldest first, each at its hour's start. */
  hourly?: Array<{ hour: string; clicks: number; visitors: number; qr: number }>;
}

export type LinkStats = {
  link_id: string;
  alias: string;
  range?: RangeName;
  tz: string;
  from: string;
  to: string;
  /** All-time clicks of the link (links.click_count). */
  total_clicks: number;
} & (({ advanced: true } & AdvancedStats) | { advanced: false; message: string; required_plan: string });

export interface StatsDeps {
  db: Db;
  /** Which raw tables hold clicks (SQLite stages some); default sqlite. */
  dialect?: Dialect;
  clock: Clock;
  /** Stored roll-ups with the clicks held back from them (every statistic is fresh); default: what is stored. */
  reads?: ClickReads;
}

export type Top = Array<{ value: string; clicks: number; visitors: number }>;

/** Top values per dimension (the finer ones apart), and the QR scans' visitors. */
export interface Tops {
  by: Record<Dimension, Top>;
  finer: FinerTops;
  qrVisitors: number;
}

export class StatsService {
  readonly reads: ClickReads;

  constructor(readonly deps: StatsDeps) {
    this.reads = deps.reads ?? new ClickReads({ db: deps.db, heldBack: () => null });
  }

  /** Clicks per day of the last SPARKLINE_DAYS days (today last) of each link, from one read for them all. */
  sparklines(links: LinkKey[]): Promise<Map<string, number[]>> {
    return readSparklines(this.reads, links, this.deps.clock.now());
  }

  /** The period of a query; `firstMs`: when the data begins (range=all). */
  period(query: RangeQuery, firstMs: number): Period {
    return resolvePeriod(query, this.deps.clock.now(), firstMs);
  }

  async forLink(link: LinkRow, plan: string, query: RangeQuery): Promise<LinkStats> {
    const p = this.period(query, Number(link.created_at));
    const key = [{ id: link.id, num: Number(link.num) }];
    if (!can(plan, "advanced_stats")) {
      const counts = await this.reads.counts(key);
      const needed = requiredPlan("advanced_stats");
      return {
        ...this.base(link, p, counts.get(link.id) ?? Number(link.click_count)),
        advanced: false,
        message: `The ${PLAN_TABLE[needed].label} plan adds the series, visitors, QR scans, countries, regions, cities, devices, browsers, operating systems, referrers, UTM values, bot share and CSV export.`,
        required_plan: needed,
      };
    }
    if (p.name === "24h") return this.lastDay(link, p);
    const filter = linkRows(sql<boolean>`link_id = ${link.id}`);
    const { value: stored, groups } = await this.reads.read(key, async (db, held) => {
      const count = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirst();
      const series = await storedSeries(db, filter, p);
      const tops = await this.tops(db, filter, p.days, held);
      // Destinations are kept per UTC day: "default" is a day's clicks minus the others.
      const utcDaily = await this.daily(link.id, p.days, db);
      const destinations = await storedDestinations(db, link.id, p.days);
      return { clickCount: Number(count?.click_count ?? link.click_count), series, tops, utcDaily, destinations };
    });
    const inDays = groups.filter((g) => g.day >= p.days.from && g.day <= p.days.to);
    const period = periodStats(p, seriesOf(p, stored.series, groups), withHeldTops(stored.tops, inDays));
    const utcDaily = withHeldDaily(stored.utcDaily, inDays);
    return {
      ...this.base(link, p, stored.clickCount + groups.reduce((n, g) => n + heldCount(g), 0)),
      advanced: true,
      ...period,
      ...(p.granularity === "day" ? { daily: period.series.map((s) => ({ date: s.label, clicks: s.clicks, visitors: s.visitors, qr: s.qr })) } : {}),
      ...destinationStats(link, utcDaily.series, [...stored.destinations, ...groupDestinations(inDays)]),
    };
  }

  private base(link: LinkRow, p: Period, totalClicks: number) {
    return { link_id: link.id, alias: link.alias, ...(p.name ? { range: p.name } : {}), tz: p.tz, from: p.from, to: p.to, total_clicks: totalClicks };
  }

  /** range=24h: hour by hour and the breakdowns from the raw clicks of the window (last-day.ts), with the all-time count in the same view. */
  private async lastDay(link: LinkRow, p: Period): Promise<LinkStats> {
    const w = lastDayWindow(this.deps.clock.now());
    const filter = linkRows(sql<boolean>`link_id = ${link.id}`);
    const { value, groups, unwritten } = await this.reads.read([{ id: link.id, num: Number(link.num) }], async (db) => {
      const count = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirst();
      const cells = await storedCells(db, this.deps.dialect ?? "sqlite", Number(link.num), w);
      return { clickCount: Number(count?.click_count ?? link.click_count), cells, series: await storedSeries(db, filter, p) };
    });
    const day = lastDayOf(w, value.cells, unwritten);
    const series = seriesOf(p, value.series, groups);
    // The hours' totals from the raw clicks (the breakdowns' own); the previous 24 hours from the hourly roll-up.
    const totals: Totals = { clicks: day.clicks, visitors: day.visitors, qr: day.qr, bots: day.bots };
    const points = series.points.map((pt, i) => ({ ...pt, ...day.hours[i]! }));
    const by = Object.fromEntries(DIMENSIONS.map((d) => [d, ranked(day.by[d])])) as Record<Dimension, Top>;
    const finer = Object.fromEntries(FINER.map((d) => [d, ranked(day.finer[d])])) as FinerTops;
    const period = periodStats(p, { points, totals, previous: series.previous }, { by, finer, qrVisitors: day.qrVisitors });
    return {
      ...this.base(link, p, value.clickCount + groups.reduce((n, g) => n + heldCount(g), 0)),
      advanced: true,
      ...period,
      hourly: points.map((pt) => ({ hour: new Date(pt.start).toISOString(), clicks: pt.clicks, visitors: pt.visitors, qr: pt.qr })),
      ...destinationStats(link, day.perDay, day.others),
    };
  }

  /** Every dimension's top values over UTC days for the filtered links, with the stored counts of the held-back groups' values (so they can move into the top). */
  async tops(db: Db, links: RollupSource, days: DayRange, held: Group[]): Promise<Tops> {
    const inDays = held.filter((g) => g.day >= days.from && g.day <= days.to);
    const monthsThrough = await this.monthsThrough(db);
    const by = {} as Record<Dimension, Top>;
    for (const d of DIMENSIONS) {
      const values = [...new Set(inDays.map((g) => g[d]))];
      const top = await this.top(links, d, days, monthsThrough, TOP_N, db);
      by[d] = values.length === 0 ? top : [...top, ...(await this.top(links, d, days, monthsThrough, values.length, db, values))];
    }
    const finer = await topFiner(db, links, days, monthsThrough);
    const heldFiner = inDays.flatMap(finerValues);
    if (heldFiner.length > 0) {
      const counts = await topFiner(db, links, days, monthsThrough, heldFiner);
      for (const d of FINER) finer[d].push(...counts[d]);
    }
    const qr = await this.top(links, "source", days, monthsThrough, 1, db, ["qr"]);
    return { by, finer, qrVisitors: qr[0]?.visitors ?? 0 };
  }

  /** The last month the monthly roll-up holds completely (later months are read from the daily one). */
  async monthsThrough(db: Db): Promise<string> {
    const state = await db.selectFrom("click_rollup_state").select("months_through").where("id", "=", 1).executeTakeFirst();
    return state?.months_through ?? "";
  }

  /** The daily series of UTC days, zero-filled for every day of the range, with the range's totals. */
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

  /** The most-clicked values of one dimension over UTC days (ties by value, for a stable order), or those of `only`: whole months up to `monthsThrough` from the monthly roll-up, the other days from the daily one. */
  async top(
    src: RollupSource,
    dimension: Dimension | "source",
    range: DayRange,
    monthsThrough: string,
    limit = TOP_N,
    db = this.deps.db,
    only?: string[],
  ): Promise<Top> {
    const parts = splitByMonth(range, monthsThrough);
    const values = only === undefined ? sql`` : sql` AND value IN (${sql.join(only)})`;
    const arms = parts.days.map(
      (d) =>
        sql`SELECT value, clicks, visitors FROM ${sql.table(src.breakdown)} WHERE ${src.where} AND dimension = ${dimension} AND day >= ${d.from} AND day <= ${d.to}${values}`,
    );
    if (parts.months) {
      arms.unshift(
        sql`SELECT value, clicks, visitors FROM ${sql.table(src.monthly)} WHERE ${src.where} AND dimension = ${dimension} AND month >= ${parts.months.from} AND month <= ${parts.months.to}${values}`,
      );
    }
    const rows = await sql<{ value: string; clicks: number; visitors: number }>`SELECT value, sum(clicks) AS clicks, sum(visitors) AS visitors
      FROM (${sql.join(arms, sql` UNION ALL `)}) AS u GROUP BY value HAVING sum(clicks) > 0 ORDER BY sum(clicks) DESC, value ASC LIMIT ${limit}`.execute(db);
    return rows.rows.map((r) => ({ value: r.value, clicks: Number(r.clicks), visitors: Number(r.visitors) }));
  }
}

type DailyStats = { series: Array<{ date: string; clicks: number }>; clicks: number; bots: number };

/** A period's answer from its series and tops. */
export function periodStats(p: Period, s: { points: SeriesPoint[]; totals: Totals; previous: Totals }, tops: Tops): PeriodStats {
  const t = s.totals;
  const prev = s.previous;
  const top = <K extends string>(key: K, rows: Top): Breakdown<K> =>
    rows.map((r) => ({ [key]: r.value, clicks: r.clicks, visitors: r.visitors }) as Breakdown<K>[number]);
  return {
    granularity: p.granularity,
    range_clicks: t.clicks,
    range_visitors: t.visitors,
    range_qr: t.qr,
    ...(p.previous
      ? {
          previous: { from: p.previous.from, to: p.previous.to, clicks: prev.clicks, visitors: prev.visitors, qr: prev.qr },
          change: { clicks: change(t.clicks, prev.clicks), visitors: change(t.visitors, prev.visitors), qr: change(t.qr, prev.qr) },
        }
      : {}),
    series: s.points.map((pt) => ({ start: new Date(pt.start).toISOString(), label: pt.label, clicks: pt.clicks, visitors: pt.visitors, qr: pt.qr })),
    sources: [
      { source: "link", clicks: t.clicks - t.qr, visitors: Math.max(0, t.visitors - tops.qrVisitors) },
      { source: "qr", clicks: t.qr, visitors: Math.min(t.visitors, tops.qrVisitors) },
    ],
    countries: top("country", tops.by.country),
    devices: top("device", tops.by.device),
    browsers: top("browser", tops.by.browser),
    os: top("os", tops.by.os),
    referrers: top("referrer", tops.by.referrer),
    ...finerStats(tops.finer),
    bots: t.bots,
    bot_share: t.clicks === 0 ? 0 : Math.round((t.bots / t.clicks) * 10_000) / 10_000,
  };
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

/** Each breakdown's top TOP_N with the held-back groups added (`stored` holds the stored top and the stored counts of the groups' values). */
export function withHeldTops(stored: Tops, groups: Group[]): Tops {
  if (groups.length === 0) return stored;
  const by = {} as Record<Dimension, Top>;
  for (const d of DIMENSIONS) {
    const counts = new Map<string, { clicks: number; visitors: number }>();
    for (const r of stored.by[d]) counts.set(r.value, { clicks: r.clicks, visitors: r.visitors });
    for (const g of groups) {
      const c = counts.get(g[d]) ?? { clicks: 0, visitors: 0 };
      counts.set(g[d], { clicks: c.clicks + g.clicks, visitors: c.visitors + g.visitors });
    }
    by[d] = ranked(counts);
  }
  const finer = {} as FinerTops;
  const finerCounts = new Map(FINER.map((d) => [d, new Map(stored.finer[d].map((r) => [r.value, { clicks: r.clicks, visitors: r.visitors }]))]));
  for (const g of groups) {
    for (const [d, value] of finerValues(g)) {
      const counts = finerCounts.get(d)!;
      const c = counts.get(value) ?? { clicks: 0, visitors: 0 };
      counts.set(value, { clicks: c.clicks + g.clicks, visitors: c.visitors + g.visitors });
    }
  }
  for (const d of FINER) finer[d] = ranked(finerCounts.get(d)!);
  let qrVisitors = stored.qrVisitors;
  for (const g of groups) if (g.qr === 1) qrVisitors += g.visitors;
  return { by, finer, qrVisitors };
}

/** The TOP_N values with the most clicks, ties by value (the order the stored reads use). */
export function ranked(counts: Map<string, { clicks: number; visitors: number }>): Top {
  return [...counts]
    .map(([value, c]) => ({ value, clicks: c.clicks, visitors: c.visitors }))
    .sort((a, b) => b.clicks - a.clicks || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, TOP_N);
}
