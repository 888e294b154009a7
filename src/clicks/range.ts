// UTC days "YYYY-MM-DD" and ranges of them (inclusive): what the day-keyed roll-ups are read by.
export const DAY_MS = 86_400_000;
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
  const rangeWhole =
    range.endMs === Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1) ? range.endMs : Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1);
  const complete = /^\d{4}-\d{2}$/.test(monthsThrough) ? Date.UTC(Number(monthsThrough.slice(0, 4)), Number(monthsThrough.slice(5, 7)), 1) : -Infinity;
  const afterWhole = Math.min(rangeWhole, complete);
  if (firstWhole >= afterWhole) return { months: null, days: [{ from: range.from, to: range.to }] };
  const days: RangeParts["days"] = [];
  if (firstWhole > range.startMs) days.push({ from: range.from, to: ymd(firstWhole - DAY_MS) });
  if (afterWhole < range.endMs) days.push({ from: ymd(afterWhole), to: range.to });
  return { months: { from: ymd(firstWhole).slice(0, 7), to: ymd(afterWhole - DAY_MS).slice(0, 7) }, days };
}
