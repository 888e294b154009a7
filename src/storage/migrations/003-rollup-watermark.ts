// Where the SQLite roll-ups stand: raw clicks with a larger id are not in the roll-ups yet (they are
// folded in at the next roll-up write, or at start after a crash).
import { type Kysely, sql } from "kysely";

export function rollupWatermark() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("click_rollup_state")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("last_click_id", "bigint", (c) => c.notNull())
        .execute();
      // Roll-ups so far were written with every click batch: everything stored is already in them.
      await sql`INSERT INTO click_rollup_state (id, last_click_id) SELECT 1, coalesce(max(id), 0) FROM clicks`.execute(db);
    },
  };
}
