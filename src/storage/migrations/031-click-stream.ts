// The click stream (docs/stream.md): brokers clicks are published to, and the outbox the click writer
// fills in the transaction that stores the clicks; publishers delete what a broker confirmed.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function clickStream(dialect: Dialect) {
  const serial = dialect === "postgres" ? "bigserial" : "integer";
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("stream_sinks")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("url_enc", "text")
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("full", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("lease_owner", "text")
        .addColumn("lease_until", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("delivered", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("failed", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("last_ok_at", "bigint")
        .addColumn("last_error", "text")
        .addColumn("last_error_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("stream_sinks_owner").on("stream_sinks").column("owner_id").execute();
      await db.schema
        .createTable("stream_outbox")
        .addColumn("id", sql.raw(serial), (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("sink_id", "text", (c) => c.notNull().references("stream_sinks.id").onDelete("cascade"))
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("link_id", "text", (c) => c.notNull())
        .addColumn("owner_id", "text")
        .addColumn("alias", "text", (c) => c.notNull())
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("click", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("stream_outbox_sink").on("stream_outbox").columns(["sink_id", "id"]).execute();
    },
  };
}
