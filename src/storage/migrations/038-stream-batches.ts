// The click stream's outbox holds one row per batch and sink (streams/outbox.ts): `n` events, in
// `events` (a JSON array). Rows written before this migration hold one event each in their own columns
// (`events` null, `n` 1) and are published as before.
import type { Kysely } from "kysely";

export function streamBatches() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("stream_outbox")
        .addColumn("n", "integer", (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable("stream_outbox").addColumn("events", "text").execute();
    },
  };
}
