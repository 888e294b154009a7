// Webhooks (docs/webhooks.md): subscriptions per account, and the last deliveries of each (the delivery log).
import { type Kysely } from "kysely";
import type { Dialect } from "../db.js";

export function webhooks(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("webhooks")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        // AES-256-GCM of the whsec_ secret (webhooks/secrets.ts); null for connector kinds.
        .addColumn("secret_enc", "text")
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        // Events dropped because the webhook's queue was full, summed over every instance.
        .addColumn("dropped", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("webhooks_owner").on("webhooks").columns(["owner_id", "created_at"]).execute();

      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("webhook_id", "text", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
        .addColumn("event", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("error", "text")
        .addColumn("duration_ms", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("webhook_deliveries_recent").on("webhook_deliveries").columns(["webhook_id", "at"]).execute();
    },
  };
}
