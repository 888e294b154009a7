// Cheaper click writes. The clicks (at) index goes: retention prunes the oldest rows in id order
// instead, so every raw click updates one index fewer. Each raw click says whether it was counted
// into links.click_count when it was served (click-limited links), because SQLite now adds the
// other clicks to the count with the roll-ups, and recovery after a crash must know which to add.
// The roll-up state records a roll-up written in several transactions (which links are done), so a
// crash in between is recovered exactly. On SQLite the daily roll-ups move into their primary-key
// b-tree (WITHOUT ROWID): each upsert writes one b-tree instead of a table and its key index.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function leanClicks(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex("clicks_at").execute();
      await db.schema
        .alterTable("clicks")
        .addColumn("counted", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("click_rollup_state").addColumn("epoch_to", "bigint").execute();
      await db.schema.alterTable("click_rollup_state").addColumn("epoch_link", "text").execute();
      if (dialect !== "sqlite") return;

      await sql`CREATE TABLE click_daily_new (
        link_id text NOT NULL REFERENCES links (id) ON DELETE CASCADE,
        day text NOT NULL,
        clicks bigint NOT NULL,
        bots bigint NOT NULL,
        CONSTRAINT click_daily_pk PRIMARY KEY (link_id, day)
      ) WITHOUT ROWID`.execute(db);
      await sql`INSERT INTO click_daily_new (link_id, day, clicks, bots) SELECT link_id, day, clicks, bots FROM click_daily`.execute(db);
      await sql`DROP TABLE click_daily`.execute(db);
      await sql`ALTER TABLE click_daily_new RENAME TO click_daily`.execute(db);

      await sql`CREATE TABLE click_breakdown_new (
        link_id text NOT NULL REFERENCES links (id) ON DELETE CASCADE,
        day text NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        clicks bigint NOT NULL,
        CONSTRAINT click_breakdown_pk PRIMARY KEY (link_id, dimension, day, value)
      ) WITHOUT ROWID`.execute(db);
      await sql`INSERT INTO click_breakdown_new (link_id, day, dimension, value, clicks)
        SELECT link_id, day, dimension, value, clicks FROM click_breakdown`.execute(db);
      await sql`DROP TABLE click_breakdown`.execute(db);
      await sql`ALTER TABLE click_breakdown_new RENAME TO click_breakdown`.execute(db);
    },
  };
}
