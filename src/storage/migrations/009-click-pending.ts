// PostgreSQL: under load, the roll-up groups (link, day, values, clicks) of links with a few clicks in a
// batch (a long tail) wait in click_pending, not yet in the roll-ups or links.click_count, until an
// instance's periodic roll-up deletes them and writes their roll-ups in the same transaction: a long
// tail's link gets its roll-up rows upserted once per roll-up instead of once per batch (its raw clicks
// are written with the batch, as any). Reads add the pending groups of their links (indexed by link
// number) to what is stored, so every instance sees every instance's clicks. A link's deletion takes
// its pending groups along, like its clicks. SQLite holds roll-ups back in memory instead.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function clickPending(dialect: Dialect) {
  return {
    up: async (db: Kysely<unknown>) => {
      if (dialect !== "postgres") return;
      await sql`CREATE TABLE click_pending (id bigserial PRIMARY KEY, link_num bigint NOT NULL, day text NOT NULL, country text NOT NULL,
        device text NOT NULL, os text NOT NULL, browser text NOT NULL, referrer text NOT NULL, is_bot integer NOT NULL,
        clicks integer NOT NULL, counted integer NOT NULL)`.execute(db);
      await sql`CREATE INDEX click_pending_link ON click_pending (link_num)`.execute(db);
      await sql`CREATE OR REPLACE FUNCTION delete_clicks_of_deleted_links() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          DELETE FROM clicks USING deleted_links WHERE clicks.link_num = deleted_links.num;
          DELETE FROM click_pending USING deleted_links WHERE click_pending.link_num = deleted_links.num;
          RETURN NULL;
        END $$`.execute(db);
    },
  };
}
