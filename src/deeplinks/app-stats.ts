// App figures (docs/deep-links.md, Store visits, installs and opens): per link or account over a period, the
// clicks the redirect sent to a store listing (tracked_clicks.store), and the installs and opens apps reported
// (app_events), installs by match kind. Exact, straight from their tables; the CSV export's daily columns too.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { type DayRange, daysOf } from "../clicks/range.js";

export interface AppCounts {
  store_visits: number;
  installs: number;
  opens: number;
  installs_by_match: { deterministic: number; probabilistic: number };
}

/** Whose figures: one link's, some links', or an account's. */
export type AppScope = { linkIds: readonly string[] } | { ownerId: string };

interface Window {
  startMs: number;
  endMs: number;
}

const DAY_MS = 86_400_000;

/** A link with an app: an App Store id, an Android package or an in-app path. */
export function hasAppFields(link: { app_ios_store_id: string | null; app_android_package: string | null; app_path: string | null }): boolean {
  return link.app_ios_store_id !== null || link.app_android_package !== null || link.app_path !== null;
}

export function anyAppFigure(c: AppCounts): boolean {
  return c.store_visits > 0 || c.installs > 0 || c.opens > 0;
}

/** The scope's store visits, installs and opens in [startMs, endMs). */
export async function appCounts(db: Db, scope: AppScope, w: Window): Promise<AppCounts> {
  const zero: AppCounts = { store_visits: 0, installs: 0, opens: 0, installs_by_match: { deterministic: 0, probabilistic: 0 } };
  if ("linkIds" in scope && scope.linkIds.length === 0) return zero;
  const [visits, events] = await Promise.all([
    db
      .selectFrom("tracked_clicks")
      .select((eb) => eb.fn.countAll().as("n"))
      .where((eb) => ("linkIds" in scope ? eb("link_id", "in", scope.linkIds) : eb("owner_id", "=", scope.ownerId)))
      .where("store", "is not", null)
      .where("at", ">=", w.startMs)
      .where("at", "<", w.endMs)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("app_events")
      .select(["kind", "match", (eb) => eb.fn.countAll().as("n")])
      .where((eb) => ("linkIds" in scope ? eb("link_id", "in", scope.linkIds) : eb("owner_id", "=", scope.ownerId)))
      .where("created_at", ">=", w.startMs)
      .where("created_at", "<", w.endMs)
      .groupBy(["kind", "match"])
      .execute(),
  ]);
  const out = { ...zero, installs_by_match: { ...zero.installs_by_match }, store_visits: Number(visits.n) };
  for (const e of events) {
    const n = Number(e.n);
    if (e.kind === "app_open") out.opens += n;
    else {
      out.installs += n;
      out.installs_by_match[e.match] += n;
    }
  }
  return out;
}

/**
 * The CSV export's daily app columns (store_visits, installs, opens per UTC day), after the conversions'; none when
 * the link has no app fields and no app figure in the range (as conversion columns are left out without conversions).
 */
export async function dailyAppColumns(
  db: Db,
  link: { id: string; app_ios_store_id: string | null; app_android_package: string | null; app_path: string | null },
  days: DayRange,
): Promise<{ header: string[]; cells: (date: string) => number[] }> {
  const day = (column: "at" | "created_at") => sql<number>`(${sql.ref(column)} / ${sql.lit(DAY_MS)})`;
  const [visits, events] = await Promise.all([
    db
      .selectFrom("tracked_clicks")
      .select([day("at").as("d"), (eb) => eb.fn.countAll().as("n")])
      .where("link_id", "=", link.id)
      .where("store", "is not", null)
      .where("at", ">=", days.startMs)
      .where("at", "<", days.endMs)
      .groupBy(day("at"))
      .execute(),
    db
      .selectFrom("app_events")
      .select([day("created_at").as("d"), "kind", (eb) => eb.fn.countAll().as("n")])
      .where("link_id", "=", link.id)
      .where("created_at", ">=", days.startMs)
      .where("created_at", "<", days.endMs)
      .groupBy([day("created_at"), "kind"])
      .execute(),
  ]);
  if (!hasAppFields(link) && visits.length === 0 && events.length === 0) return { header: [], cells: () => [] };
  const dates = daysOf(days);
  const byDate = new Map(dates.map((d): [string, [number, number, number]] => [d, [0, 0, 0]]));
  const dateOf = (d: number) => dates[Math.round((Number(d) * DAY_MS - days.startMs) / DAY_MS)];
  for (const v of visits) {
    const row = byDate.get(dateOf(v.d) ?? "");
    if (row) row[0] += Number(v.n);
  }
  for (const e of events) {
    const row = byDate.get(dateOf(e.d) ?? "");
    if (row) row[e.kind === "app_install" ? 1 : 2] += Number(e.n);
  }
  return { header: ["store_visits", "installs", "opens"], cells: (date) => byDate.get(date) ?? [0, 0, 0] };
}
