// PostgreSQL: a link's roll-up rows (click_daily, click_hourly, click_breakdown, click_breakdown_month) lose their
// foreign key to links; a statement trigger deletes them with their link instead, as migration 006 did for raw clicks.
// The key checked every new roll-up row against links, a locked index lookup each: 11.1-12.4 µs of PostgreSQL's CPU
// per new row with it, 6.5-7.8 without (1,000 links x 6 rows a statement, 50,000 links), and a Zipf click makes about
// one new row. What the key guarded is held by locks: the click writer writes only for the links it has locked
// (clicks/pg-writer.ts, lockLinks), and monthly compaction locks its chunk's links (clicks/pg-months.ts), so that a link
// is deleted either before (its rows are not written) or after (the trigger deletes them). SQLite keeps its keys.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

const ROLLUPS = ["click_daily", "click_hourly", "click_breakdown", "click_breakdown_month"] as const;

export function pgRollupKeys(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== "postgres") return;
      const keys = await sql<{ table: string; name: string }>`SELECT conrelid::regclass::text AS table, conname AS name FROM pg_constraint
        WHERE contype = 'f' AND confrelid = 'links'::regclass AND conrelid::regclass::text IN (${sql.join(ROLLUPS.map((t) => sql.lit(t)))})`.execute(db);
      for (const k of keys.rows) await sql`ALTER TABLE ${sql.table(k.table)} DROP CONSTRAINT ${sql.ref(k.name)}`.execute(db);
      // Joined by each table's key (link_id first), whatever the size of the first deletion planned (migration 067).
      await sql`CREATE FUNCTION delete_rollups_of_deleted_links() RETURNS trigger LANGUAGE plpgsql
        SET enable_hashjoin = off SET enable_mergejoin = off AS $$
        BEGIN
          ${sql.raw(ROLLUPS.map((t) => `DELETE FROM ${t} USING deleted_links WHERE ${t}.link_id = deleted_links.id;`).join("\n          "))}
          RETURN NULL;
        END $$`.execute(db);
      await sql`CREATE TRIGGER links_delete_rollups AFTER DELETE ON links REFERENCING OLD TABLE AS deleted_links
        FOR EACH STATEMENT EXECUTE FUNCTION delete_rollups_of_deleted_links()`.execute(db);
    },
  };
}
