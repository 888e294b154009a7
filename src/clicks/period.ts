// The period of a statistics answer: a named or custom range in the viewer's time zone, its points
// (hours, days or months), the UTC days its breakdowns read, and the period of the same length before it.
import { invalid } from "../shared/errors.js";
import { RANGE_NAMES } from "../contract/stats.js";
import { DAY_MS, type DayRange, parseDay, ymd } from "./range.js";
import { HOUR_MS } from "./click-groups.js";

export type RangeName = (typeof RANGE_NAMES)[number];
export type Granularity = "hour" | "day" | "month";

export interface PeriodQuery {
  from?: string | undefined;
  to?: string | undefined;
  range?: RangeName | undefined;
  tz?: string | undefined;
}

export interface Point {
  /** Epoch ms of the point's start; the point ends where the next starts (the last at the period's end). */
  start: number;
  label: string;
}

export interface Window {
  startMs: number;
  endMs: number;
  /** First and last day in the time zone. */
  from: string;
  to: string;
}

export interface Period extends Window {
  name?: RangeName;
  tz: string;
  granularity: Granularity;
  points: Point[];
  /** The UTC days the period touches: what day-keyed roll-ups (breakdowns) are read for. */
  days: DayRange;
  /** The period of the same length just before; null for all. */
  previous: Window | null;
}

export const DEFAULT_DAYS = 30;
/** Custom ranges: at most about ten years. */
export const MAX_DAYS = 3_660;
const EARLIEST = "2000-01-01";
const HOURLY_MAX_DAYS = 2;
const DAILY_MAX_DAYS = 366;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The time zone's formatter; an unknown zone is a 400 on `tz`. */
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw invalid("tz", "must be an IANA time zone such as Europe/Paris or UTC");
    }
    if (formatters.size > 500) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock time in the zone at an instant, as if it were UTC (epoch ms). */
function wallClock(ms: number, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(ms)) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year as number, (p.month as number) - 1, p.day as number, p.hour as number, p.minute as number, p.second as number);
}

/** The instant of a wall-clock time in the zone (the later one where a clock change repeats it; the first after a gap). */
export function instantOf(wall: number, tz: string): number {
  const first = wall - (wallClock(wall, tz) - wall);
  const second = wall - (wallClock(first, tz) - first);
  return Math.max(first, second);
}

/** The day (YYYY-MM-DD) in the zone at an instant. */
export function localDay(ms: number, tz: string): string {
  return ymd(wallClock(ms, tz));
}

function localLabel(ms: number, tz: string, granularity: Granularity): string {
  const iso = new Date(wallClock(ms, tz)).toISOString();
  return granularity === "hour" ? iso.slice(0, 16) : granularity === "day" ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** The instant a local day starts (its midnight, or its first instant after a gap). */
function dayStart(day: number, tz: string): number {
  return instantOf(day, tz);
}

function addMonths(day: number, n: number): number {
  const d = new Date(day);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
}

function checkedDay(field: "from" | "to", text: string, today: number): number {
  const ms = parseDay(text);
  if (ms === null) throw invalid(field, "must be a calendar day as YYYY-MM-DD");
  if (text < EARLIEST) throw invalid(field, `must not be before ${EARLIEST}`);
  if (ms > today + DAY_MS) throw invalid(field, "must not be more than one day in the future");
  return ms;
}

/** First and last local day (as UTC-midnight numbers) of a named range; 24h is handled apart. */
function namedDays(name: Exclude<RangeName, "24h">, today: number, firstDay: number): [number, number] {
  switch (name) {
    case "mtd":
      return [addMonths(today, 0), today];
    case "lastmonth":
      return [addMonths(today, -1), addMonths(today, 0) - DAY_MS];
    case "12mo":
      return [addMonths(today, -11), today];
    case "all":
      return [Math.min(firstDay, today), today];
    default:
      return [today - (Number(name.slice(0, -1)) - 1) * DAY_MS, today];
  }
}

/**
 * Validates the query and resolves the period at `nowMs`; `firstMs` is when the data begins (for all:
 * a link's creation, an account's first link).
 */
export function resolvePeriod(query: PeriodQuery, nowMs: number, firstMs: number): Period {
  if (query.range !== undefined && (query.from || query.to)) throw invalid("range", "give either range or from and to, not both");
  const tz = query.tz || "UTC";
  formatter(tz);
  if (query.range === "24h") return lastHours(tz, nowMs);
  const today = parseDay(localDay(nowMs, tz)) as number;
  let fromDay: number;
  let toDay: number;
  if (query.range !== undefined) [fromDay, toDay] = namedDays(query.range, today, parseDay(localDay(firstMs, tz)) as number);
  else {
    toDay = query.to ? checkedDay("to", query.to, today) : today;
    fromDay = query.from ? checkedDay("from", query.from, today) : toDay - (DEFAULT_DAYS - 1) * DAY_MS;
    if (fromDay > toDay) throw invalid("from", "must not be after to");
    if ((toDay - fromDay) / DAY_MS + 1 > MAX_DAYS) throw invalid("from", `the range may cover at most ${MAX_DAYS} days`);
  }
  const days = Math.round((toDay - fromDay) / DAY_MS) + 1;
  const granularity: Granularity = days <= HOURLY_MAX_DAYS ? "hour" : days <= DAILY_MAX_DAYS ? "day" : "month";
  const startMs = dayStart(fromDay, tz);
  const endMs = dayStart(toDay + DAY_MS, tz);
  const points: Point[] = [];
  if (granularity === "hour") for (let t = startMs; t < endMs; t += HOUR_MS) points.push({ start: t, label: localLabel(t, tz, "hour") });
  else if (granularity === "day") for (let d = fromDay; d <= toDay; d += DAY_MS) points.push({ start: dayStart(d, tz), label: ymd(d) });
  else for (let m = fromDay; m <= toDay; m = addMonths(m, 1)) points.push({ start: m === fromDay ? startMs : dayStart(m, tz), label: ymd(m).slice(0, 7) });
  const period: Period = { tz, granularity, points, ...window(startMs, endMs, tz), days: utcDays(startMs, endMs), previous: null };
  if (query.range !== undefined) period.name = query.range;
  if (query.range !== "all") period.previous = window(startMs - (endMs - startMs), startMs, tz);
  return period;
}

/** range=24h: the current UTC hour and the 23 before it. */
function lastHours(tz: string, nowMs: number): Period {
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  const startMs = endMs - 24 * HOUR_MS;
  const points: Point[] = [];
  for (let t = startMs; t < endMs; t += HOUR_MS) points.push({ start: t, label: localLabel(t, tz, "hour") });
  return {
    name: "24h",
    tz,
    granularity: "hour",
    points,
    ...window(startMs, endMs, tz),
    days: utcDays(startMs, endMs),
    previous: window(startMs - 24 * HOUR_MS, startMs, tz),
  };
}

function window(startMs: number, endMs: number, tz: string): Window {
  return { startMs, endMs, from: localDay(startMs, tz), to: localDay(endMs - 1, tz) };
}

function utcDays(startMs: number, endMs: number): DayRange {
  const from = ymd(startMs);
  const to = ymd(endMs - 1);
  const s = parseDay(from) as number;
  const e = (parseDay(to) as number) + DAY_MS;
  return { from, to, days: Math.round((e - s) / DAY_MS), startMs: s, endMs: e };
}

/** The index of the point holding an instant (points ascending), -1 before the first. */
export function pointIndex(points: Point[], ms: number): number {
  let lo = 0;
  let hi = points.length - 1;
  if (hi < 0 || ms < (points[0] as Point).start) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((points[mid] as Point).start <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
