// Custom domains (docs/custom-domains.md): one row per hostname added by an account, its DNS proof token, its state,
// and the times the re-check job and the verify throttle claim atomically (several instances share them).
import type { Kysely } from "kysely";

export function customDomains() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("domains")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        // Unique across accounts: a hostname belongs to one account at a time (delete frees it).
        .addColumn("hostname", "text", (c) => c.notNull().unique())
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("txt_token", "text", (c) => c.notNull())
        .addColumn("next_action", "text")
        .addColumn("last_checked_at", "bigint")
        .addColumn("verified_at", "bigint")
        // When a re-check found the TXT record gone (the domain went back to pending); cleared on verify.
        .addColumn("lost_at", "bigint")
        // Verified domains: when the next re-check is due; an instance claims a check by moving it on.
        .addColumn("next_check_at", "bigint")
        // Last accepted verify request (the per-domain throttle, claimed by a conditional update).
        .addColumn("verify_requested_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("domains_owner").on("domains").columns(["owner_id", "created_at"]).execute();
      await db.schema.createIndex("domains_next_check").on("domains").column("next_check_at").execute();
    },
  };
}
