// SQLite writes a month's monthly breakdown rows once, when the month is over, by compacting its daily
// rows, instead of upserting them with every roll-up (five upserts per link and interval fewer).
// click_rollup_state.months_through is the last month whose monthly rows are complete: statistics
// read later months from the daily rows, and roll-ups keep months up to it complete. A compaction in
// progress records the month it compacts up to and the last link it has done.
// PostgreSQL keeps writing monthly rows with every batch: every month is complete there.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

/** "YYYY-MM" of the month before the one holding `ms` (UTC). */
export function monthBefore(ms: number): string {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
}

export function monthlyCompaction(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("click_rollup_state").addColumn("months_through", "text").execute();
      await db.schema.alterTable("click_rollup_state").addColumn("compact_to", "text").execute();
      await db.schema.alterTable("click_rollup_state").addColumn("compact_link", "text").execute();
      // So far every month's monthly rows were kept complete: through the latest month that has any
      // (and trivially through last month).
      const through =
        dialect === "postgres"
          ? sql<string>`'9999-12'`
          : sql<string>`(SELECT max(m) FROM (SELECT max(month) AS m FROM click_breakdown_month UNION ALL SELECT ${monthBefore(Date.now())}))`;
      await sql`UPDATE click_rollup_state SET months_through = ${through} WHERE id = 1`.execute(db);
    },
  };
}
