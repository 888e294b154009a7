// Per-link statistics for a date range, read only from the roll-up tables (never from raw clicks), so
// the cost grows with (months + edge days) x distinct values, not with the number of clicks.
import { type Expression, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { LinkRow } from "../storage/schema.js";
import { PLAN_TABLE, can, requiredPlan } from "../accounts/plans.js";
import { type DayRange, daysOf, resolveRange, splitByMonth } from "./range.js";
import { DIMENSIONS, type Dimension } from "./click-batch.js";

/** Entries kept per breakdown (countries, devices, ...). */
export const TOP_N = 50;

export interface RangeQuery {
  from?: string | undefined;
  to?: string | undefined;
}

type Breakdown<K extends string> = Array<{ [P in K]: string } & { clicks: number }>;

export interface AdvancedStats {
  range_clicks: number;
  daily: Array<{ date: string; clicks: number }>;
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
  from: string;
  to: string;
  /** All-time clicks of the link (links.click_count). */
  total_clicks: number;
} & ({ advanced: true } & AdvancedStats | { advanced: false; message: string; required_plan: string });

export interface StatsDeps {
  db: Db;
  clock: Clock;
}

export class StatsService {
  constructor(private readonly deps: StatsDeps) {}

  range(query: RangeQuery): DayRange {
    return resolveRange(query, this.deps.clock.now());
  }

  async forLink(link: LinkRow, plan: string, query: RangeQuery): Promise<LinkStats> {
    const range = this.range(query);
    const base = { link_id: link.id, alias: link.alias, from: range.from, to: range.to, total_clicks: Number(link.click_count) };
    if (!can(plan, "advanced_stats")) {
      const needed = requiredPlan("advanced_stats");
      return {
        ...base,
        advanced: false,
        message: `The ${PLAN_TABLE[needed].label} plan adds daily clicks, countries, devices, browsers, operating systems, referrers, bot share and CSV export.`,
        required_plan: needed,
      };
    }
    const monthsThrough = await this.monthsThrough();
    const [daily, ...breakdowns] = await Promise.all([this.daily(link.id, range), ...DIMENSIONS.map((d) => this.top(link.id, d, range, monthsThrough))]);
    const by = Object.fromEntries(DIMENSIONS.map((d, i) => [d, breakdowns[i] ?? []])) as Record<Dimension, Array<{ value: string; clicks: number }>>;
    const rename = <K extends string>(key: K, rows: Array<{ value: string; clicks: number }>) =>
      rows.map((r) => ({ [key]: r.value, clicks: r.clicks }) as { [P in K]: string } & { clicks: number });
    return {
      ...base,
      advanced: true,
      range_clicks: daily.clicks,
      daily: daily.series,
      countries: rename("country", by.country),
      devices: rename("device", by.device),
      browsers: rename("browser", by.browser),
      os: rename("os", by.os),
      referrers: rename("referrer", by.referrer),
      bots: daily.bots,
      bot_share: daily.clicks === 0 ? 0 : Math.round((daily.bots / daily.clicks) * 10_000) / 10_000,
    };
  }

  /** The last month the monthly roll-up holds completely (later months are read from the daily one). */
  private async monthsThrough(): Promise<string> {
    const state = await this.deps.db.selectFrom("click_rollup_state").select("months_through").where("id", "=", 1).executeTakeFirst();
    return state?.months_through ?? "";
  }

  /** The daily series, zero-filled for every day of the range, with the range's totals. */
  async daily(linkId: string, range: DayRange): Promise<{ series: Array<{ date: string; clicks: number }>; clicks: number; bots: number }> {
    const rows = await this.deps.db
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

  /** The most-clicked values of one dimension over the range (ties by value, for a stable order):
   * whole months up to `monthsThrough` from the monthly roll-up, the other days from the daily one. */
  async top(linkId: string, dimension: Dimension, range: DayRange, monthsThrough: string, limit = TOP_N): Promise<Array<{ value: string; clicks: number }>> {
    const db = this.deps.db;
    const parts = splitByMonth(range, monthsThrough);
    const days = parts.days.map((d) =>
      db
        .selectFrom("click_breakdown")
        .select(["value", "clicks"])
        .where("link_id", "=", linkId)
        .where("dimension", "=", dimension)
        .where("day", ">=", d.from)
        .where("day", "<=", d.to),
    );
    const months = parts.months
      ? db
          .selectFrom("click_breakdown_month")
          .select(["value", "clicks"])
          .where("link_id", "=", linkId)
          .where("dimension", "=", dimension)
          .where("month", ">=", parts.months.from)
          .where("month", "<=", parts.months.to)
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
