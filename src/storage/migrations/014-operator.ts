// Operator console (docs/operator.md): operator accounts, links disabled by an operator, the destination
// blocklist, abuse reports and the append-only audit log of every operator action.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function operator(dialect: Dialect) {
  const serial = dialect === "postgres" ? "bigserial" : "integer";
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("users")
        .addColumn("is_admin", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("users").addColumn("last_sign_in_at", "bigint").execute();

      // A link an operator disabled: visitors get disabled_status (410 or 451), its owner sees the reason.
      await db.schema.alterTable("links").addColumn("disabled_at", "bigint").execute();
      await db.schema.alterTable("links").addColumn("disabled_status", "integer").execute();
      await db.schema.alterTable("links").addColumn("disabled_reason", "text").execute();

      // Hosts (with their subdomains) links may not point to; BLOCKLIST_FILE's hosts are kept in memory.
      await db.schema
        .createTable("blocked_hosts")
        .addColumn("host", "text", (c) => c.primaryKey())
        .addColumn("note", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("created_by", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("abuse_reports")
        .addColumn("id", "text", (c) => c.primaryKey())
        // The reported link; null once it is deleted (the report keeps what was reported).
        .addColumn("link_id", "text", (c) => c.references("links.id").onDelete("set null"))
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("alias", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("details", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("reporter_email", "text")
        // open | dismissed | link_disabled | owner_banned
        .addColumn("state", "text", (c) => c.notNull().defaultTo("open"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("resolved_at", "bigint")
        .addColumn("resolved_by", "text")
        .execute();
      await db.schema.createIndex("abuse_reports_state").on("abuse_reports").columns(["state", "created_at"]).execute();
      await db.schema.createIndex("abuse_reports_link").on("abuse_reports").column("link_id").execute();

      await db.schema
        .createTable("admin_audit")
        .addColumn("id", sql.raw(serial), (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("at", "bigint", (c) => c.notNull())
        // The operator (null for the command line); the email is kept when the account is deleted.
        .addColumn("actor_id", "text")
        .addColumn("actor_email", "text", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("target_type", "text", (c) => c.notNull())
        .addColumn("target_id", "text", (c) => c.notNull())
        .addColumn("summary", "text", (c) => c.notNull())
        // JSON of the target's relevant fields before and after the action.
        .addColumn("before", "text")
        .addColumn("after", "text")
        .execute();
      await db.schema.createIndex("admin_audit_at").on("admin_audit").column("at").execute();
      await db.schema.createIndex("admin_audit_target").on("admin_audit").columns(["target_id", "at"]).execute();

      // Never editable: the database itself refuses changes and deletions of audit rows.
      if (dialect === "postgres") {
        await sql`CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'admin_audit is append-only'; END $$`.execute(db);
        await sql`CREATE TRIGGER admin_audit_no_change BEFORE UPDATE OR DELETE ON admin_audit
          FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only()`.execute(db);
      } else {
        await sql`CREATE TRIGGER admin_audit_no_update BEFORE UPDATE ON admin_audit
          BEGIN SELECT RAISE(ABORT, 'admin_audit is append-only'); END`.execute(db);
        await sql`CREATE TRIGGER admin_audit_no_delete BEFORE DELETE ON admin_audit
          BEGIN SELECT RAISE(ABORT, 'admin_audit is append-only'); END`.execute(db);
      }
    },
  };
}
