// The last 24 hours of one link, hour by hour, counted from its raw clicks (the roll-ups are by day).
// One aggregate over the link's raw clicks of the window: an index range on clicks (link_num, at), plus on
// SQLite the few staged rows (click_staging has no index: a scan of what waits for the next roll-up), so the
// cost grows with the link's clicks of the last day. PostgreSQL's clicks not committed yet come from memory.
import { sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import { DIMENSIONS, type Dimension, type Group, HOUR_MS, dayOf } from "./click-groups.js";
import type { DayCount } from "./destinations.js";

export const LAST_DAY_HOURS = 24;

/** The window: the current UTC hour (still running) and the 23 before it. */
export interface HourWindow {
  startMs: number;
  endMs: number;
}

export function lastDayWindow(nowMs: number): HourWindow {
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { startMs: endMs - LAST_DAY_HOURS * HOUR_MS, endMs };
}

/** One distinct combination of a click's values and hour, with how many clicks had it. */
interface Cell {
  hour: number;
  country: string;
  device: string;
  os: string;
  browser: string;
  referrer: string;
  is_bot: number;
  /** Null: the link's url. */
  destination: string | null;
  clicks: number;
}

export interface LastDay {
  hourly: Array<{ hour: string; clicks: number }>;
  clicks: number;
  bots: number;
  /** Per dimension, every value with its clicks (not yet cut to a top). */
  by: Record<Dimension, Map<string, number>>;
  /** The window's clicks per UTC day (days in order), and those not sent to the link's url, per day and destination. */
  perDay: Array<{ date: string; clicks: number }>;
  others: DayCount[];
}

const VALUES = ["country", "device", "os", "browser", "referrer", "is_bot", "destination"] as const;

/** The stored raw clicks of one link in the window, grouped by hour and values (one statement: one snapshot). */
export async function storedCells(db: Db, dialect: Dialect, linkNum: number, w: HourWindow): Promise<Cell[]> {
  // A literal, not a parameter: PostgreSQL matches the GROUP BY expression to the selected one only when they are the same text.
  const hour = sql<number>`at - (at % ${sql.lit(HOUR_MS)})`;
  const from = (table: "clicks" | "click_staging") =>
    db
      .selectFrom(table)
      .select([hour.as("hour"), ...VALUES, sql<number>`count(*)`.as("clicks")])
      .where("link_num", "=", linkNum)
      .where("at", ">=", w.startMs)
      .where("at", "<", w.endMs)
      .groupBy([hour, ...VALUES]);
  // PostgreSQL writes every click into clicks with its batch: no staging table.
  const rows = dialect === "sqlite" ? await from("clicks").unionAll(from("click_staging")).execute() : await from("clicks").execute();
  return rows.map((r) => ({ ...r, hour: Number(r.hour), is_bot: Number(r.is_bot), clicks: Number(r.clicks) }));
}

/** The hourly series (24 points, zero-filled) and the breakdowns of the stored cells and the unwritten groups of the window. */
export function lastDayOf(w: HourWindow, cells: Cell[], unwritten: Group[]): LastDay {
  const extra: Cell[] = unwritten
    // Every unwritten group has its hour (groupsOf); one without would not be of a known hour.
    .filter((g) => g.hour !== undefined && g.hour >= w.startMs && g.hour < w.endMs)
    .map((g) => ({ hour: g.hour as number, country: g.country, device: g.device, os: g.os, browser: g.browser, referrer: g.referrer, is_bot: g.is_bot, destination: g.destination, clicks: g.clicks }));
  const perHour = new Map<number, number>();
  const by = Object.fromEntries(DIMENSIONS.map((d) => [d, new Map<string, number>()])) as Record<Dimension, Map<string, number>>;
  let clicks = 0;
  let bots = 0;
  const others: DayCount[] = [];
  for (const c of [...cells, ...extra]) {
    perHour.set(c.hour, (perHour.get(c.hour) ?? 0) + c.clicks);
    if (c.destination !== null) others.push({ day: dayOf(c.hour), destination: c.destination, clicks: c.clicks });
    for (const d of DIMENSIONS) by[d].set(c[d], (by[d].get(c[d]) ?? 0) + c.clicks);
    clicks += c.clicks;
    bots += c.is_bot ? c.clicks : 0;
  }
  const hourly: LastDay["hourly"] = [];
  const perDay: LastDay["perDay"] = [];
  for (let t = w.startMs; t < w.endMs; t += HOUR_MS) {
    const n = perHour.get(t) ?? 0;
    hourly.push({ hour: new Date(t).toISOString(), clicks: n });
    const date = dayOf(t);
    if (perDay.at(-1)?.date === date) perDay.at(-1)!.clicks += n;
    else perDay.push({ date, clicks: n });
  }
  return { hourly, clicks, bots, by, perDay, others };
}
