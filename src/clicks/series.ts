// A period's points and totals (clicks, visitors, QR scans, bots) from the hourly roll-up, or from the
// daily one where the points are UTC days or months: no raw click is read, whatever the range.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Group } from "./click-groups.js";
import { type Period, type Point, type Window, pointIndex } from "./period.js";
import { ymd } from "./range.js";

export interface Totals {
  clicks: number;
  visitors: number;
  qr: number;
  bots: number;
}

export interface SeriesPoint extends Totals {
  start: number;
  label: string;
}

/**
 * Where a statistic's rows are: the links' roll-ups (one link, or an account's filtered links: `where`
 * compares link_id) or an owner's (owner_daily, owner_hourly, owner_breakdown, owner_breakdown_month: `where` compares owner_id).
 */
export interface RollupSource {
  daily: "click_daily" | "owner_daily";
  hourly: "click_hourly" | "owner_hourly";
  breakdown: "click_breakdown" | "owner_breakdown";
  /** Monthly breakdown rows: complete through click_rollup_state.months_through. */
  monthly: "click_breakdown_month" | "owner_breakdown_month";
  where: RawBuilder<boolean>;
}

/** The roll-ups of the links `where` keeps (it compares link_id). */
export function linkRows(where: RawBuilder<boolean>): RollupSource {
  return { daily: "click_daily", hourly: "click_hourly", breakdown: "click_breakdown", monthly: "click_breakdown_month", where };
}

/** An owner's roll-ups: all its links' clicks summed. */
export function ownerRows(ownerId: string): RollupSource {
  return {
    daily: "owner_daily",
    hourly: "owner_hourly",
    breakdown: "owner_breakdown",
    monthly: "owner_breakdown_month",
    where: sql<boolean>`owner_id = ${ownerId}`,
  };
}

interface Row extends Totals {
  /** The row's hour, or its UTC day's midnight (epoch ms). */
  t: number;
}

export function zero(): Totals {
  return { clicks: 0, visitors: 0, qr: 0, bots: 0 };
}

/** Day-keyed rows serve where every point starts at a UTC midnight: the zone is UTC and the points are days or months. */
function byDay(p: Pick<Period, "tz" | "granularity">): boolean {
  return p.tz === "UTC" && p.granularity !== "hour";
}

/** The stored rows of a window, summed per hour (or UTC day). */
async function storedRows(db: Db, src: RollupSource, w: Window, daily: boolean): Promise<Row[]> {
  const sums = sql`sum(clicks) AS clicks, sum(visitors) AS visitors, sum(qr) AS qr, sum(bots) AS bots`;
  const rows = daily
    ? (
        await sql<
          { day: string } & Totals
        >`SELECT day, ${sums} FROM ${sql.table(src.daily)} WHERE ${src.where} AND day >= ${ymd(w.startMs)} AND day <= ${ymd(w.endMs - 1)} GROUP BY day`.execute(
          db,
        )
      ).rows.map((r) => ({ ...r, t: Date.parse(r.day) }))
    : (
        await sql<
          { hour: number } & Totals
        >`SELECT hour, ${sums} FROM ${sql.table(src.hourly)} WHERE ${src.where} AND hour >= ${w.startMs} AND hour < ${w.endMs} GROUP BY hour`.execute(db)
      ).rows.map((r) => ({ ...r, t: Number(r.hour) }));
  return rows.map((r) => ({ t: r.t, clicks: Number(r.clicks), visitors: Number(r.visitors), qr: Number(r.qr), bots: Number(r.bots) }));
}

export interface StoredSeries {
  current: Row[];
  previous: Totals;
}

/** The stored rows of the period and the totals of the period before it (two statements). */
export async function storedSeries(db: Db, src: RollupSource, p: Period): Promise<StoredSeries> {
  const current = await storedRows(db, src, p, byDay(p));
  const previous = zero();
  if (p.previous !== null) for (const r of await storedRows(db, src, p.previous, byDay(p))) add(previous, r);
  return { current, previous };
}

function add(to: Totals, r: Totals): void {
  to.clicks += r.clicks;
  to.visitors += r.visitors;
  to.qr += r.qr;
  to.bots += r.bots;
}

function groupTotals(g: Group): Totals {
  return { clicks: g.clicks, visitors: g.visitors, qr: g.qr * g.clicks, bots: g.is_bot * g.clicks };
}

/** Every point of the period, zero-filled, with the stored rows and the groups not in them (held back, not committed yet) added; totals of both periods. */
export function seriesOf(p: Period, stored: StoredSeries, groups: Group[]): { points: SeriesPoint[]; totals: Totals; previous: Totals } {
  const points: SeriesPoint[] = p.points.map((pt: Point) => ({ start: pt.start, label: pt.label, ...zero() }));
  const totals = zero();
  const previous = { ...stored.previous };
  const place = (t: number, r: Totals) => {
    if (t < p.startMs || t >= p.endMs) return;
    const i = pointIndex(p.points, t);
    if (i < 0) return;
    add(points[i] as SeriesPoint, r);
    add(totals, r);
  };
  for (const r of stored.current) place(r.t, r);
  for (const g of groups) {
    if (g.hour >= p.startMs && g.hour < p.endMs) place(g.hour, groupTotals(g));
    else if (p.previous !== null && g.hour >= p.previous.startMs && g.hour < p.previous.endMs) add(previous, groupTotals(g));
  }
  return { points, totals, previous };
}

/** (this - before) / before, to four places; null when there was nothing before. */
export function change(now: number, before: number): number | null {
  return before === 0 ? null : Math.round(((now - before) / before) * 10_000) / 10_000;
}
