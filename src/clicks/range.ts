// The statistics date range: UTC days "YYYY-MM-DD", inclusive, validated and defaulted from the clock.
import { invalid } from "../shared/errors.js";

export const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;
const EARLIEST = "2000-01-01";
const YMD = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface DayRange {
  from: string;
  to: string;
  /** Number of days, both ends included. */
  days: number;
  /** Epoch ms of from's 00:00 UTC and of the day after to (exclusive end). */
  startMs: number;
  endMs: number;
}

export function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Epoch ms of a day's 00:00 UTC, or null when the text is not a real calendar day. */
export function parseDay(text: string): number | null {
  const m = YMD.exec(text);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return ymd(ms) === text ? ms : null; // rejects 2026-02-30, 2026-13-01
}

function checkedDay(field: "from" | "to", text: string, todayMs: number): number {
  const ms = parseDay(text);
  if (ms === null) throw invalid(field, "must be a calendar day as YYYY-MM-DD (UTC)");
  if (text < EARLIEST) throw invalid(field, `must not be before ${EARLIEST}`);
  if (ms > todayMs + DAY_MS) throw invalid(field, "must not be more than one day in the future");
  return ms;
}

/** The named ranges: the last 24 hours (by hour), or the last 7, 30 or 90 days ending today. */
export const RANGES = ["24h", "7d", "30d", "90d"] as const;
export type RangeName = (typeof RANGES)[number];

/** The days a named range covers: for 24h, the days of its first and last hour. */
function namedRange(name: RangeName, nowMs: number): { from: string; to: string } {
  const todayMs = parseDay(ymd(nowMs)) as number;
  if (name === "24h") return { from: ymd(Math.floor(nowMs / 3_600_000) * 3_600_000 - 23 * 3_600_000), to: ymd(todayMs) };
  return { from: ymd(todayMs - (Number(name.slice(0, -1)) - 1) * DAY_MS), to: ymd(todayMs) };
}

/**
 * Validates from/to (either may be absent or empty) or a named range (not both); the default is the
 * last 30 days ending today.
 */
export function resolveRange(query: { from?: string | undefined; to?: string | undefined; range?: RangeName | undefined }, nowMs: number): DayRange {
  if (query.range !== undefined && (query.from || query.to)) throw invalid("range", "give either range or from and to, not both");
  const input = query.range === undefined ? query : namedRange(query.range, nowMs);
  const todayMs = parseDay(ymd(nowMs)) as number;
  const toMs = input.to ? checkedDay("to", input.to, todayMs) : todayMs;
  const fromMs = input.from
    ? checkedDay("from", input.from, todayMs)
    : Math.max(toMs - (DEFAULT_RANGE_DAYS - 1) * DAY_MS, parseDay(EARLIEST) as number);
  if (fromMs > toMs) throw invalid("from", "must not be after to");
  const days = Math.round((toMs - fromMs) / DAY_MS) + 1;
  if (days > MAX_RANGE_DAYS) throw invalid("from", `the range may cover at most ${MAX_RANGE_DAYS} days`);
  return { from: ymd(fromMs), to: ymd(toMs), days, startMs: fromMs, endMs: toMs + DAY_MS };
}

/** Every day of the range, in order. */
export function daysOf(range: DayRange): string[] {
  const out: string[] = [];
  for (let t = range.startMs; t < range.endMs; t += DAY_MS) out.push(ymd(t));
  return out;
}

export interface RangeParts {
  /** Whole calendar months inside the range ("YYYY-MM", inclusive), or null. */
  months: { from: string; to: string } | null;
  /** The days outside those months: at most one run before and one after. */
  days: Array<{ from: string; to: string }>;
}

/**
 * Splits a range into whole months (read from the monthly roll-up) and the days around them. Only
 * months up to `monthsThrough` ("YYYY-MM", the last month the monthly roll-up holds completely) count
 * as whole; later ones are read day by day.
 */
export function splitByMonth(range: DayRange, monthsThrough: string): RangeParts {
  const start = new Date(range.startMs);
  const last = new Date(range.endMs - DAY_MS);
  const firstWhole = range.from.endsWith("-01") ? range.startMs : Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  // The first day of the month after the last whole month.
  const rangeWhole = range.endMs === Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1) ? range.endMs : Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1);
  const complete = /^\d{4}-\d{2}$/.test(monthsThrough) ? Date.UTC(Number(monthsThrough.slice(0, 4)), Number(monthsThrough.slice(5, 7)), 1) : -Infinity;
  const afterWhole = Math.min(rangeWhole, complete);
  if (firstWhole >= afterWhole) return { months: null, days: [{ from: range.from, to: range.to }] };
  const days: RangeParts["days"] = [];
  if (firstWhole > range.startMs) days.push({ from: range.from, to: ymd(firstWhole - DAY_MS) });
  if (afterWhole < range.endMs) days.push({ from: ymd(afterWhole), to: range.to });
  return { months: { from: ymd(firstWhole).slice(0, 7), to: ymd(afterWhole - DAY_MS).slice(0, 7) }, days };
}
