// The statistics page's days (UTC, as the API counts them) and label case.

const DAY = 86_400_000;

/** YYYY-MM-DD of a Date, in UTC (the API's days are UTC days). */
function ymd(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function validYmd(s: string | null): s is string {
  return !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));
}

/** Every day from..to (inclusive) with its clicks, zero when the API sent nothing for it. */
export function zeroFill(daily: { date: string; clicks: number }[], from: string, to: string): { date: string; clicks: number }[] {
  const byDate = new Map<string, number>();
  for (const d of daily) byDate.set(d.date.slice(0, 10), (byDate.get(d.date.slice(0, 10)) ?? 0) + d.clicks);
  const out: { date: string; clicks: number }[] = [];
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start || (end - start) / DAY > 3660) return daily;
  for (let t = start; t <= end; t += DAY) {
    const key = ymd(new Date(t));
    out.push({ date: key, clicks: byDate.get(key) ?? 0 });
  }
  return out;
}
