// Imports (docs/import.md): jobs, their report lines, the source links already imported, and the clicks a
// source counted before snip (links.imported_clicks, shown beside the clicks snip counted).
import { type Kysely } from "kysely";

export function imports() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("links").addColumn("imported_clicks", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema
        .createTable("import_jobs")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_by", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("base_url", "text")
        .addColumn("source_key", "text", (c) => c.notNull())
        .addColumn("source_group", "text")
        .addColumn("token_sealed", "text")
        .addColumn("file", "text")
        .addColumn("on_taken", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("cursor", "text")
        .addColumn("lines", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("total", "bigint")
        .addColumn("read_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("created_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("skipped_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("failed_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("visit_count", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("error", "text")
        .addColumn("lease_until", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("started_at", "bigint")
        .addColumn("finished_at", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("run_started_at", "bigint")
        .addColumn("run_read_base", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex("import_jobs_owner").on("import_jobs").columns(["owner_id", "created_at"]).execute();
      await db.schema.createIndex("import_jobs_state").on("import_jobs").columns(["state", "lease_until"]).execute();
      await db.schema
        .createTable("import_items")
        .addColumn("job_id", "text", (c) => c.notNull().references("import_jobs.id").onDelete("cascade"))
        .addColumn("line", "bigint", (c) => c.notNull())
        .addColumn("source_id", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("alias", "text")
        .addColumn("domain", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("code", "text")
        .addColumn("notes", "text")
        .addPrimaryKeyConstraint("import_items_pk", ["job_id", "line"])
        .execute();
      await db.schema
        .createTable("imported_links")
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("source_key", "text", (c) => c.notNull())
        .addColumn("source_id", "text", (c) => c.notNull())
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addPrimaryKeyConstraint("imported_links_pk", ["owner_id", "source_key", "source_id"])
        .execute();
      await db.schema.createIndex("imported_links_link").on("imported_links").column("link_id").execute();
    },
  };
}
