// The delivery log keeps what was sent: the request body (for the owner to read) and whether it was a test event.
import { type Kysely } from "kysely";

export function deliveryPayload() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("webhook_deliveries")
        .addColumn("test", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      // The JSON body as sent; null for deliveries logged before this column existed.
      await db.schema.alterTable("webhook_deliveries").addColumn("payload", "text").execute();
    },
  };
}
