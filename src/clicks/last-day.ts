// The last 24 hours of one link, hour by hour, counted from its raw clicks (the roll-ups are by day).
// One aggregate over the link's raw clicks of the window: an index range on clicks (link_num, at), plus on
// SQLite the few staged rows (click_staging has no index: a scan of what waits for the next roll-up), so the
// cost grows with the link's clicks of the last day. PostgreSQL's clicks not committed yet come from memory.
import { sql } from "kysely";
import type { Db, Dialect } from "../storage/db.js";
import { type ClickRow, DIMENSIONS, FINER, type Dimension, type Finer, type Group, HOUR_MS, dayOf } from "./click-groups.js";
import { finerValues } from "./finer.js";
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

/** One distinct combination of a click's values and hour, with how many clicks (and new visitors) had it; destination null: the link's url. */
type Cell = Pick<ClickRow, (typeof VALUES)[number]> & { hour: number; clicks: number; visitors: number };

type Counts = { clicks: number; visitors: number; qr: number };

export interface LastDay {
  /** The 24 hours in order. */
  hours: Counts[];
  clicks: number;
  visitors: number;
  qr: number;
  qrVisitors: number;
  bots: number;
  /** Per dimension, every value with its clicks and visitors (not yet cut to a top). */
  by: Record<Dimension, Map<string, { clicks: number; visitors: number }>>;
  /** The same for the finer dimensions, of the clicks that have them. */
  finer: Record<Finer, Map<string, { clicks: number; visitors: number }>>;
  /** The window's clicks per UTC day (days in order), and those not sent to the link's url, per day and destination. */
  perDay: Array<{ date: string; clicks: number }>;
  others: DayCount[];
}

const VALUES = ["country", "device", "os", "browser", "referrer", "is_bot", "destination", "qr", "region", "city", "referrer_url", "utm"] as const;

/** The stored raw clicks of one link in the window, grouped by hour and values (one statement: one snapshot). */
export async function storedCells(db: Db, dialect: Dialect, linkNum: number, w: HourWindow): Promise<Cell[]> {
  // A literal, not a parameter: PostgreSQL matches the GROUP BY expression to the selected one only when they are the same text.
  const hour = sql<number>`at - (at % ${sql.lit(HOUR_MS)})`;
  const from = (table: "clicks" | "click_staging") =>
    db
      .selectFrom(table)
      .select([hour.as("hour"), ...VALUES, sql<number>`count(*)`.as("clicks"), sql<number>`sum(new_visitor)`.as("visitors")])
      .where("link_num", "=", linkNum)
      .where("at", ">=", w.startMs)
      .where("at", "<", w.endMs)
      .groupBy([hour, ...VALUES]);
  // PostgreSQL writes every click into clicks with its batch: no staging table.
  const rows = dialect === "sqlite" ? await from("clicks").unionAll(from("click_staging")).execute() : await from("clicks").execute();
  return rows.map((r) => ({ ...r, hour: Number(r.hour), is_bot: Number(r.is_bot), qr: Number(r.qr), clicks: Number(r.clicks), visitors: Number(r.visitors) }));
}

/** The hourly series (24 points, zero-filled) and the breakdowns of the stored cells and the unwritten groups of the window. */
export function lastDayOf(w: HourWindow, cells: Cell[], unwritten: Group[]): LastDay {
  const extra: Cell[] = unwritten
    .filter((g) => g.hour >= w.startMs && g.hour < w.endMs)
    .map((g) => ({
      hour: g.hour,
      country: g.country,
      device: g.device,
      os: g.os,
      browser: g.browser,
      referrer: g.referrer,
      is_bot: g.is_bot,
      destination: g.destination,
      qr: g.qr,
      region: g.region,
      city: g.city,
      referrer_url: g.referrer_url,
      utm: g.utm,
      clicks: g.clicks,
      visitors: g.visitors,
    }));
  const perHour = new Map<number, Counts>();
  const by = Object.fromEntries(DIMENSIONS.map((d) => [d, new Map<string, { clicks: number; visitors: number }>()])) as LastDay["by"];
  const finer = Object.fromEntries(FINER.map((d) => [d, new Map<string, { clicks: number; visitors: number }>()])) as LastDay["finer"];
  const day: Omit<LastDay, "hours" | "by" | "finer" | "perDay" | "others"> = { clicks: 0, visitors: 0, qr: 0, qrVisitors: 0, bots: 0 };
  const others: DayCount[] = [];
  for (const c of [...cells, ...extra]) {
    const h = perHour.get(c.hour) ?? { clicks: 0, visitors: 0, qr: 0 };
    perHour.set(c.hour, { clicks: h.clicks + c.clicks, visitors: h.visitors + c.visitors, qr: h.qr + c.qr * c.clicks });
    if (c.destination !== null) others.push({ day: dayOf(c.hour), destination: c.destination, clicks: c.clicks });
    for (const d of DIMENSIONS) {
      const v = by[d].get(c[d]) ?? { clicks: 0, visitors: 0 };
      by[d].set(c[d], { clicks: v.clicks + c.clicks, visitors: v.visitors + c.visitors });
    }
    for (const [d, value] of finerValues(c)) {
      const v = finer[d].get(value) ?? { clicks: 0, visitors: 0 };
      finer[d].set(value, { clicks: v.clicks + c.clicks, visitors: v.visitors + c.visitors });
    }
    day.clicks += c.clicks;
    day.visitors += c.visitors;
    day.qr += c.qr * c.clicks;
    day.qrVisitors += c.qr * c.visitors;
    day.bots += c.is_bot ? c.clicks : 0;
  }
  const hours: Counts[] = [];
  const perDay: LastDay["perDay"] = [];
  for (let t = w.startMs; t < w.endMs; t += HOUR_MS) {
    const h = perHour.get(t) ?? { clicks: 0, visitors: 0, qr: 0 };
    hours.push(h);
    const date = dayOf(t);
    if (perDay.at(-1)?.date === date) perDay.at(-1)!.clicks += h.clicks;
    else perDay.push({ date, clicks: h.clicks });
  }
  return { ...day, hours, by, finer, perDay, others };
}
