// PostgreSQL compacts a month's monthly breakdown rows once the month is over, as SQLite does since
// migration 005 (src/clicks/pg-months.ts): until now every batch upserted them, so every month was
// complete ('9999-12'). From here on the monthly rows are complete through the latest month that has
// any (and trivially through last month); click_rollup_state.compact_link holds, on PostgreSQL, the
// last links.num a compaction in progress has done. All instances must run this version: an older one
// would keep upserting the months a newer one compacts.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";
import { monthBefore } from "./005-monthly-compaction.js";

export function pgMonthlyCompaction(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== "postgres") return;
      await sql`UPDATE click_rollup_state SET compact_to = NULL, compact_link = NULL,
        months_through = (SELECT max(m) FROM (SELECT max(month) AS m FROM click_breakdown_month UNION ALL SELECT ${monthBefore(Date.now())}) AS months)
        WHERE id = 1`.execute(db);
    },
  };
}
