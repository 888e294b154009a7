// Initial schema: accounts, sessions, links, clicks with daily roll-ups, API keys, rate events.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

// eslint-disable-next-line max-lines-per-function -- the first schema as shipped, one statement per table; migrations are never edited
export function initial(dialect: Dialect) {
  const serial = dialect === "postgres" ? "bigserial" : "integer";
  const blob = dialect === "postgres" ? "bytea" : "blob";
  return {
    // eslint-disable-next-line max-lines-per-function -- as initial() above
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("users")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("email", "text", (c) => c.notNull().unique())
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("email_verified_at", "bigint")
        .addColumn("plan", "text", (c) => c.notNull().defaultTo("free"))
        .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
        .addColumn("picture_updated_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("user_pictures")
        .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
        .addColumn("mime", "text", (c) => c.notNull())
        .addColumn("data", sql.raw(blob), (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("sessions")
        .addColumn("id_hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("last_seen_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();

      await db.schema
        .createTable("email_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("purpose", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("email_tokens_user").on("email_tokens").columns(["user_id", "purpose"]).execute();

      await db.schema
        .createTable("links")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("domain", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("alias", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("ios_url", "text")
        .addColumn("android_url", "text")
        .addColumn("expires_at", "bigint")
        .addColumn("max_clicks", "bigint")
        .addColumn("password_hash", "text")
        .addColumn("click_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("owner_id", "text", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("links_domain_alias", ["domain", "alias"])
        .execute();
      await db.schema.createIndex("links_owner_created").on("links").columns(["owner_id", "created_at", "id"]).execute();

      await db.schema
        .createTable("clicks")
        .addColumn("id", sql.raw(serial), (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("country", "text", (c) => c.notNull())
        .addColumn("device", "text", (c) => c.notNull())
        .addColumn("os", "text", (c) => c.notNull())
        .addColumn("browser", "text", (c) => c.notNull())
        .addColumn("referrer", "text", (c) => c.notNull())
        .addColumn("is_bot", "integer", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("clicks_link_at").on("clicks").columns(["link_id", "at"]).execute();
      await db.schema.createIndex("clicks_at").on("clicks").column("at").execute();

      await db.schema
        .createTable("click_daily")
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("clicks", "bigint", (c) => c.notNull())
        .addColumn("bots", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("click_daily_pk", ["link_id", "day"])
        .execute();

      await db.schema
        .createTable("click_breakdown")
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("dimension", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("clicks", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("click_breakdown_pk", ["link_id", "dimension", "day", "value"])
        .execute();

      await db.schema
        .createTable("api_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("secret_hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_used_at", "bigint")
        .addColumn("revoked_at", "bigint")
        .execute();
      await db.schema.createIndex("api_keys_user").on("api_keys").column("user_id").execute();

      await db.schema
        .createTable("api_creations")
        .addColumn("id", sql.raw(serial), (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("key_id", "text", (c) => c.notNull().references("api_keys.id").onDelete("cascade"))
        .addColumn("at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("api_creations_key_at").on("api_creations").columns(["key_id", "at"]).execute();

      await db.schema
        .createTable("rate_events")
        .addColumn("id", sql.raw(serial), (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("bucket", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("rate_events_bucket_at").on("rate_events").columns(["bucket", "at"]).execute();
    },
  };
}
