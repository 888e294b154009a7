// Where each instance's click journal (src/clicks/click-journal.ts) stands: the click writer records
// here, in the transaction that commits a batch, the last journal segment it committed, so that the
// segments a killed process left under DATA_DIR are replayed from exactly there (nothing twice).
import type { Kysely } from "kysely";

export function clickJournal() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("click_journal")
        .addColumn("journal", "text", (c) => c.primaryKey())
        .addColumn("segment", "bigint", (c) => c.notNull())
        .addColumn("through_num", "bigint")
        .execute();
    },
  };
}
