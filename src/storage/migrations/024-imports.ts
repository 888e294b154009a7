// Imports (docs/import.md): jobs, their report lines, the source links already imported, and the clicks a
// source counted before snip (links.imported_clicks, shown beside the clicks snip counted). And each
// account's link count (link_counts), kept by triggers: the plan's allowance is checked on every
// creation, and counting an account's links there cost 1.8 ms at 100,000 links (an import slowed from
// 1,000 to 300 links a second as it went).
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

async function linkCounts(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // A table of its own, not a column of users: a creation holds the account's row lock (OwnerCaps) while it
  // waits for a custom domain's row, and a domain's deletion holds that row while it deletes the domain's
  // links; a trigger on users from there would close the circle (a deadlock on PostgreSQL).
  await db.schema
    .createTable("link_counts")
    .addColumn("owner_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("links", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`INSERT INTO link_counts (owner_id, links) SELECT id, (SELECT count(*) FROM links WHERE links.owner_id = users.id) FROM users`.execute(db);
  const open = sql`INSERT INTO link_counts (owner_id, links) VALUES (NEW.id, 0)`;
  const add = sql`UPDATE link_counts SET links = links + 1 WHERE owner_id = NEW.owner_id`;
  // A link deleted with its owner (the cascade from users) has no count left to change.
  const take = sql`UPDATE link_counts SET links = links - 1 WHERE owner_id = OLD.owner_id`;
  if (dialect === "sqlite") {
    await sql`CREATE TRIGGER users_link_count AFTER INSERT ON users BEGIN ${open}; END`.execute(db);
    await sql`CREATE TRIGGER links_count_insert AFTER INSERT ON links WHEN NEW.owner_id IS NOT NULL BEGIN ${add}; END`.execute(db);
    await sql`CREATE TRIGGER links_count_delete AFTER DELETE ON links
      WHEN OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) BEGIN ${take}; END`.execute(db);
    return;
  }
  await sql`CREATE FUNCTION users_link_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${open}; RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER users_link_count AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION users_link_count()`.execute(db);
  await sql`CREATE FUNCTION links_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        IF NEW.owner_id IS NOT NULL THEN ${add}; END IF;
        RETURN NEW;
      END IF;
      IF OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) THEN ${take}; END IF;
      RETURN OLD;
    END $$`.execute(db);
  await sql`CREATE TRIGGER links_count AFTER INSERT OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION links_count()`.execute(db);
}

export function imports(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await linkCounts(db, dialect);
      await db.schema
        .alterTable("links")
        .addColumn("imported_clicks", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
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
