// The email outbox: messages the mail transport has not accepted yet, retried with backoff by every
// instance (each attempt claimed by one), kept across restarts; sealed, since they hold live links.
import { type Kysely } from "kysely";

export function mailOutbox() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("mail_outbox")
        .addColumn("id", "text", (c) => c.primaryKey())
        // A newer message with the same key replaces a queued one (a resent link makes the older one useless).
        .addColumn("key", "text")
        // AES-256-GCM of the message as JSON {to, subject, text, html?} (shared/secret-box.ts), bound to id.
        .addColumn("message_enc", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        // The link in the message stops working then: no attempt after it.
        .addColumn("expires_at", "bigint")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        // When the next attempt is due; while an attempt runs, the end of its claim.
        .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
        .addColumn("last_error", "text")
        .execute();
      await db.schema.createIndex("mail_outbox_due").on("mail_outbox").column("next_attempt_at").execute();
      await db.schema.createIndex("mail_outbox_key").on("mail_outbox").column("key").execute();
    },
  };
}
