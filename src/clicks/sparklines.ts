// Each link's clicks per day over the last days, for the list's sparklines: one read of the daily roll-up
// for a whole page of links, with the clicks held back from it, so the numbers are those the statistics
// page shows for the same days.
import type { ClickReads, LinkKey } from "./click-reads.js";
import { DAY_MS, parseDay, ymd } from "./range.js";

/** Days a sparkline covers, ending today (UTC). */
export const SPARKLINE_DAYS = 7;

/** Clicks per UTC day, oldest first, the last entry today; every link of `links` has its series. */
export async function readSparklines(reads: ClickReads, links: LinkKey[], nowMs: number): Promise<Map<string, number[]>> {
  const series = new Map(links.map((l) => [l.id, new Array<number>(SPARKLINE_DAYS).fill(0)]));
  if (links.length === 0) return series;
  const todayMs = parseDay(ymd(nowMs)) as number;
  const days = Array.from({ length: SPARKLINE_DAYS }, (_, i) => ymd(todayMs - (SPARKLINE_DAYS - 1 - i) * DAY_MS));
  const index = new Map(days.map((d, i) => [d, i]));
  const ids = [...series.keys()];
  const { value: rows, groups } = await reads.read(links, (db) =>
    db
      .selectFrom("click_daily")
      .select(["link_id", "day", "clicks"])
      .where("link_id", "in", ids)
      .where("day", ">=", days[0]!)
      .where("day", "<=", days[SPARKLINE_DAYS - 1]!)
      .execute(),
  );
  const add = (linkId: string, day: string, clicks: number) => {
    const i = index.get(day);
    const s = series.get(linkId);
    if (i !== undefined && s) s[i]! += clicks;
  };
  for (const r of rows) add(r.link_id, r.day, Number(r.clicks));
  for (const g of groups) add(g.link_id, g.day, g.clicks);
  return series;
}
