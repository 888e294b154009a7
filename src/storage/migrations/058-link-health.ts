// Link health (docs/health.md): one row per destination of a link (its url, rule destinations, split variants,
// device destinations, fallback) with its state and last result, the last results of each, and the changes
// (broke, recovered) the owner's daily digest reports.
import type { Kysely } from "kysely";

export function linkHealth() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("link_health")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        // default, ios, android, rule:N, variant:N or fallback (the link's expired_url).
        .addColumn("destination", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("host", "text", (c) => c.notNull())
        // unknown (never checked), ok, failing or broken.
        .addColumn("state", "text", (c) => c.notNull().defaultTo("unknown"))
        .addColumn("consecutive_failures", "integer", (c) => c.notNull().defaultTo(0))
        // 429 answers in a row: each doubles the wait before the next check.
        .addColumn("rate_limited", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("last_result", "text")
        .addColumn("last_status", "integer")
        .addColumn("last_error", "text")
        .addColumn("final_url", "text")
        .addColumn("redirect_loop", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("tls_valid_to", "bigint")
        .addColumn("response_ms", "integer")
        .addColumn("last_checked_at", "bigint")
        .addColumn("next_check_at", "bigint", (c) => c.notNull())
        .addColumn("broken_since", "bigint")
        // An instance checking it holds it until then (docs/health.md, Several instances).
        .addColumn("lease_until", "bigint")
        .execute();
      await db.schema.createIndex("link_health_destination").on("link_health").columns(["link_id", "destination"]).unique().execute();
      await db.schema.createIndex("link_health_due").on("link_health").columns(["next_check_at"]).execute();
      await db.schema
        .createTable("link_health_results")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("health_id", "text", (c) => c.notNull().references("link_health.id").onDelete("cascade"))
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("result", "text", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("error", "text")
        .addColumn("final_url", "text")
        .addColumn("response_ms", "integer")
        .execute();
      await db.schema.createIndex("link_health_results_of").on("link_health_results").columns(["health_id", "at"]).execute();
      await db.schema
        .createTable("link_health_changes")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("destination", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        // broken or recovered
        .addColumn("change", "text", (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        // When the owner's digest reported it; null: not yet.
        .addColumn("digested_at", "bigint")
        .execute();
      await db.schema.createIndex("link_health_changes_owner").on("link_health_changes").columns(["owner_id", "digested_at"]).execute();
    },
  };
}
