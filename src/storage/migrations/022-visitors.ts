// Visitors, QR scans and hours (docs/privacy.md, docs/api.md Statistics): each raw click says whether it
// was its visitor's first of the UTC day on that link (new_visitor) and whether it came from a QR code
// (qr); the roll-ups count both; click_hourly holds clicks per link and UTC hour, so that hourly points
// and series in any time zone read no raw clicks. A visitor is a hash of the day's salt, the link, the
// address and the user agent (clicks/visitors.ts): click_visitors keeps the keys of today and yesterday,
// visitor_salts the salts of those days; older ones are deleted.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function visitors(dialect: Dialect) {
  const withoutRowid = dialect === "sqlite" ? sql` WITHOUT ROWID` : sql``;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of dialect === "sqlite" ? ["clicks", "click_staging"] : ["clicks"]) {
        await db.schema.alterTable(table).addColumn("new_visitor", "integer", (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable(table).addColumn("qr", "integer", (c) => c.notNull().defaultTo(0)).execute();
      }
      await db.schema.alterTable("click_daily").addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("click_daily").addColumn("qr", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("click_breakdown").addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable("click_breakdown_month").addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0)).execute();
      await sql`CREATE TABLE click_hourly (
        link_id text NOT NULL REFERENCES links (id) ON DELETE CASCADE,
        hour bigint NOT NULL,
        clicks bigint NOT NULL,
        bots bigint NOT NULL,
        visitors bigint NOT NULL,
        qr bigint NOT NULL,
        CONSTRAINT click_hourly_pk PRIMARY KEY (link_id, hour)
      )${withoutRowid}`.execute(db);
      // The visitor key already names its link (the link is hashed in): (day, visitor) is unique.
      await sql`CREATE TABLE click_visitors (
        day text NOT NULL,
        visitor bigint NOT NULL,
        CONSTRAINT click_visitors_pk PRIMARY KEY (day, visitor)
      )${withoutRowid}`.execute(db);
      await db.schema
        .createTable("visitor_salts")
        .addColumn("day", "text", (c) => c.primaryKey())
        .addColumn("salt", "text", (c) => c.notNull())
        .execute();
      // The hours of the clicks already in the roll-ups (on SQLite those after the watermark, and of an
      // interrupted roll-up's links not done, are rolled up at start, with their hours).
      const rolledUp =
        dialect === "sqlite"
          ? sql`WHERE c.id <= s.last_click_id OR (s.epoch_to IS NOT NULL AND c.id <= s.epoch_to AND l.id <= s.epoch_link)`
          : sql``;
      const state = dialect === "sqlite" ? sql`CROSS JOIN click_rollup_state s` : sql``;
      await sql`INSERT INTO click_hourly (link_id, hour, clicks, bots, visitors, qr)
        SELECT l.id, c.at - (c.at % 3600000), count(*), sum(c.is_bot), 0, 0
        FROM clicks c JOIN links l ON l.num = c.link_num ${state} ${rolledUp}
        GROUP BY l.id, c.at - (c.at % 3600000)`.execute(db);
    },
  };
}
