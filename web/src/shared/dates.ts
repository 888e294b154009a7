// The one date format of the dashboard: the user's locale (the browser's language and time zone).

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const DAY_NO_YEAR = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const HOUR = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });

function parse(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A day, e.g. "21 Nov 2026" or "Nov 21, 2026"; "—" when there is none. */
export function formatDate(value: string | number | Date | null | undefined): string {
  const d = parse(value);
  return d ? DATE.format(d) : "—";
}

/** A day and time of day in the user's time zone; "—" when there is none. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  const d = parse(value);
  return d ? DATE_TIME.format(d) : "—";
}

/** A chart's day label, short: "21 Nov". A `YYYY-MM-DD` day is read as that calendar day, not as UTC midnight. */
export function formatDay(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const d = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : parse(day);
  return d ? DAY_NO_YEAR.format(d) : day;
}

/** A chart's hour label in the user's time zone: "14:00" or "2:00 PM". */
export function formatHour(value: string | number | Date): string {
  const d = parse(value);
  return d ? HOUR.format(d) : String(value);
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
  ["week", 4.35],
  ["month", 12],
  ["year", Infinity],
];

/** How long ago (or until), in the user's language: "just now", "5 minutes ago", "yesterday", "3 weeks ago". */
export function formatRelative(value: string | number | Date, now: number = Date.now()): string {
  const d = parse(value);
  if (!d) return "—";
  let amount = (d.getTime() - now) / 1000;
  if (Math.abs(amount) < 45) return "just now";
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(amount) < size) return RELATIVE.format(Math.round(amount), unit);
    amount /= size;
  }
  return formatDateTime(d);
}

/** "in 45 seconds", "in 3 minutes": the Retry-After of a 429, in words. */
export function waitInWords(retryAfter: string | null): string | null {
  const seconds = Number(retryAfter);
  if (!retryAfter || !Number.isFinite(seconds) || seconds <= 0) return null;
  if (seconds < 90) return `in ${Math.ceil(seconds)} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return `in ${minutes} minutes`;
}
