// Monthly breakdown roll-up: whole months of a statistics range are read from here, so a year of a
// busy link costs ~12 rows per value instead of ~365. Backfilled from the daily breakdown.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function clickMonthly(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("click_breakdown_month")
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("month", "text", (c) => c.notNull())
        .addColumn("dimension", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("clicks", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("click_breakdown_month_pk", ["link_id", "dimension", "month", "value"])
        // SQLite: rows live in the primary-key b-tree, so range reads never leave the index.
        .$call((b) => (dialect === "sqlite" ? b.modifyEnd(sql`without rowid`) : b))
        .execute();
      await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks)
        SELECT link_id, substr(day, 1, 7), dimension, value, sum(clicks) FROM click_breakdown
        GROUP BY link_id, substr(day, 1, 7), dimension, value`.execute(db);
    },
  };
}
