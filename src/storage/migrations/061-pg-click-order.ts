// PostgreSQL: the link list's sorts by clicks and by last click (and account analytics' candidates) read a narrow
// table of their own, so that the click writer's UPDATE of links.click_count and last_click_at touches no index
// and can be HOT (docs/scaling.md, PostgreSQL's long tail). links keeps both columns, which every read shows;
// link_click_order copies them with the owner, kept equal by statement triggers on every insert, update and
// delete of links in the same transaction (one statement per statement on links, whatever its rows). The two
// sort indexes move there (links_owner_clicks, links_owner_last_click_key), and links gets room on its pages
// for updated rows (fillfactor 80; pages already full make room as they are pruned). SQLite keeps its indexes
// on links: its writer is not slowed by them (bench/README.md).
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE link_click_order (
    link_id text PRIMARY KEY,
    owner_id text,
    click_count bigint NOT NULL,
    last_click_key bigint NOT NULL
  ) WITH (fillfactor = 80)`.execute(db);
  await sql`INSERT INTO link_click_order (link_id, owner_id, click_count, last_click_key)
    SELECT id, owner_id, click_count, coalesce(last_click_at, 0) FROM links`.execute(db);
  await sql`CREATE INDEX link_click_order_clicks ON link_click_order (owner_id, click_count, link_id)`.execute(db);
  await sql`CREATE INDEX link_click_order_last_click ON link_click_order (owner_id, last_click_key, link_id)`.execute(db);
  await sql`DROP INDEX links_owner_clicks`.execute(db);
  await sql`DROP INDEX links_owner_last_click_key`.execute(db);
  await sql`ALTER TABLE links SET (fillfactor = 80)`.execute(db);
  await sql`CREATE FUNCTION link_click_order_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO link_click_order (link_id, owner_id, click_count, last_click_key)
        SELECT id, owner_id, click_count, coalesce(last_click_at, 0) FROM inserted_links;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE FUNCTION link_click_order_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE link_click_order o
        SET owner_id = n.owner_id, click_count = n.click_count, last_click_key = coalesce(n.last_click_at, 0)
        FROM updated_links n
        WHERE o.link_id = n.id
          AND (o.owner_id, o.click_count, o.last_click_key) IS DISTINCT FROM (n.owner_id, n.click_count, coalesce(n.last_click_at, 0));
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE FUNCTION link_click_order_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM link_click_order USING deleted_links WHERE link_click_order.link_id = deleted_links.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER links_click_order_insert AFTER INSERT ON links REFERENCING NEW TABLE AS inserted_links
    FOR EACH STATEMENT EXECUTE FUNCTION link_click_order_insert()`.execute(db);
  await sql`CREATE TRIGGER links_click_order_update AFTER UPDATE ON links REFERENCING NEW TABLE AS updated_links
    FOR EACH STATEMENT EXECUTE FUNCTION link_click_order_update()`.execute(db);
  await sql`CREATE TRIGGER links_click_order_delete AFTER DELETE ON links REFERENCING OLD TABLE AS deleted_links
    FOR EACH STATEMENT EXECUTE FUNCTION link_click_order_delete()`.execute(db);
}

export function pgClickOrder(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === "postgres") await postgresUp(db);
    },
  };
}
