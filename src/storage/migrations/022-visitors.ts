// Visitors, QR scans and hours (docs/privacy.md, docs/api.md Statistics): each raw click says whether it
// was its visitor's first of the UTC day on that link (new_visitor) and whether it came from a QR code
// (qr); the roll-ups count both; click_hourly holds clicks per link and UTC hour, so that hourly points
// and series in any time zone read no raw clicks. A visitor is a hash of the day's salt, the link, the
// address and the user agent (clicks/visitors.ts): click_visitors keeps the keys of today and yesterday,
// visitor_salts the salts of those days; older ones are deleted. owner_daily, owner_hourly and
// owner_breakdown sum the roll-ups of each owner's links (account analytics reads them instead of
// thousands of links' rows); a trigger takes a deleted link's clicks out of them.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function visitors(dialect: Dialect) {
  const withoutRowid = dialect === "sqlite" ? sql` WITHOUT ROWID` : sql``;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of dialect === "sqlite" ? ["clicks", "click_staging"] : ["clicks"]) {
        await db.schema
          .alterTable(table)
          .addColumn("new_visitor", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable(table)
          .addColumn("qr", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
      }
      await db.schema
        .alterTable("click_daily")
        .addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("click_daily")
        .addColumn("qr", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("click_breakdown")
        .addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("click_breakdown_month")
        .addColumn("visitors", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
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
      await ownerRollups(db, dialect);
      // The hours of the clicks already in the roll-ups (on SQLite those after the watermark, and of an
      // interrupted roll-up's links not done, are rolled up at start, with their hours).
      const rolledUp =
        dialect === "sqlite" ? sql`WHERE c.id <= s.last_click_id OR (s.epoch_to IS NOT NULL AND c.id <= s.epoch_to AND l.id <= s.epoch_link)` : sql``;
      const state = dialect === "sqlite" ? sql`CROSS JOIN click_rollup_state s` : sql``;
      await sql`INSERT INTO click_hourly (link_id, hour, clicks, bots, visitors, qr)
        SELECT l.id, c.at - (c.at % 3600000), count(*), sum(c.is_bot), 0, 0
        FROM clicks c JOIN links l ON l.num = c.link_num ${state} ${rolledUp}
        GROUP BY l.id, c.at - (c.at % 3600000)`.execute(db);
      await sql`INSERT INTO owner_hourly (owner_id, hour, clicks, bots, visitors, qr)
        SELECT l.owner_id, h.hour, sum(h.clicks), sum(h.bots), 0, 0 FROM click_hourly h JOIN links l ON l.id = h.link_id
        WHERE l.owner_id IS NOT NULL GROUP BY l.owner_id, h.hour`.execute(db);
    },
  };
}

/** The owner-level roll-ups, filled from the links' daily ones, and the trigger that keeps them without a deleted link's clicks. */
async function ownerRollups(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const withoutRowid = dialect === "sqlite" ? sql` WITHOUT ROWID` : sql``;
  const owner = sql`owner_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE`;
  const totals = sql`clicks bigint NOT NULL, bots bigint NOT NULL, visitors bigint NOT NULL, qr bigint NOT NULL`;
  await sql`CREATE TABLE owner_daily (${owner}, day text NOT NULL, ${totals}, CONSTRAINT owner_daily_pk PRIMARY KEY (owner_id, day))${withoutRowid}`.execute(
    db,
  );
  await sql`CREATE TABLE owner_hourly (${owner}, hour bigint NOT NULL, ${totals}, CONSTRAINT owner_hourly_pk PRIMARY KEY (owner_id, hour))${withoutRowid}`.execute(
    db,
  );
  await sql`CREATE TABLE owner_breakdown (${owner}, day text NOT NULL, dimension text NOT NULL, value text NOT NULL, clicks bigint NOT NULL, visitors bigint NOT NULL,
    CONSTRAINT owner_breakdown_pk PRIMARY KEY (owner_id, dimension, day, value))${withoutRowid}`.execute(db);
  await sql`INSERT INTO owner_daily (owner_id, day, clicks, bots, visitors, qr)
    SELECT l.owner_id, d.day, sum(d.clicks), sum(d.bots), 0, 0 FROM click_daily d JOIN links l ON l.id = d.link_id
    WHERE l.owner_id IS NOT NULL GROUP BY l.owner_id, d.day`.execute(db);
  await sql`INSERT INTO owner_breakdown (owner_id, day, dimension, value, clicks, visitors)
    SELECT l.owner_id, b.day, b.dimension, b.value, sum(b.clicks), 0 FROM click_breakdown b JOIN links l ON l.id = b.link_id
    WHERE l.owner_id IS NOT NULL GROUP BY l.owner_id, b.dimension, b.day, b.value`.execute(db);
  // Correlated subqueries: the same statements on both engines (SQLite triggers take no UPDATE ... FROM).
  const forget = (old: string) => [
    sql`UPDATE owner_daily SET
        clicks = clicks - (SELECT d.clicks FROM click_daily d WHERE d.link_id = ${sql.raw(old)}.id AND d.day = owner_daily.day),
        bots = bots - (SELECT d.bots FROM click_daily d WHERE d.link_id = ${sql.raw(old)}.id AND d.day = owner_daily.day),
        visitors = visitors - (SELECT d.visitors FROM click_daily d WHERE d.link_id = ${sql.raw(old)}.id AND d.day = owner_daily.day),
        qr = qr - (SELECT d.qr FROM click_daily d WHERE d.link_id = ${sql.raw(old)}.id AND d.day = owner_daily.day)
      WHERE owner_id = ${sql.raw(old)}.owner_id AND day IN (SELECT day FROM click_daily WHERE link_id = ${sql.raw(old)}.id)`,
    sql`UPDATE owner_hourly SET
        clicks = clicks - (SELECT h.clicks FROM click_hourly h WHERE h.link_id = ${sql.raw(old)}.id AND h.hour = owner_hourly.hour),
        bots = bots - (SELECT h.bots FROM click_hourly h WHERE h.link_id = ${sql.raw(old)}.id AND h.hour = owner_hourly.hour),
        visitors = visitors - (SELECT h.visitors FROM click_hourly h WHERE h.link_id = ${sql.raw(old)}.id AND h.hour = owner_hourly.hour),
        qr = qr - (SELECT h.qr FROM click_hourly h WHERE h.link_id = ${sql.raw(old)}.id AND h.hour = owner_hourly.hour)
      WHERE owner_id = ${sql.raw(old)}.owner_id AND hour IN (SELECT hour FROM click_hourly WHERE link_id = ${sql.raw(old)}.id)`,
    sql`UPDATE owner_breakdown SET
        clicks = clicks - (SELECT b.clicks FROM click_breakdown b WHERE b.link_id = ${sql.raw(old)}.id AND b.dimension = owner_breakdown.dimension AND b.day = owner_breakdown.day AND b.value = owner_breakdown.value),
        visitors = visitors - (SELECT b.visitors FROM click_breakdown b WHERE b.link_id = ${sql.raw(old)}.id AND b.dimension = owner_breakdown.dimension AND b.day = owner_breakdown.day AND b.value = owner_breakdown.value)
      WHERE owner_id = ${sql.raw(old)}.owner_id AND EXISTS (SELECT 1 FROM click_breakdown b WHERE b.link_id = ${sql.raw(old)}.id AND b.dimension = owner_breakdown.dimension AND b.day = owner_breakdown.day AND b.value = owner_breakdown.value)`,
  ];
  if (dialect === "sqlite") {
    // A link deleted with its owner (the cascade from users) leaves nothing to take out: the owner's rows go too.
    await sql`CREATE TRIGGER links_forget_owner_clicks BEFORE DELETE ON links
      WHEN OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) BEGIN
      ${sql.join(forget("OLD"), sql`; `)};
    END`.execute(db);
    return;
  }
  await sql`CREATE FUNCTION links_forget_owner_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) THEN
        ${sql.join(forget("OLD"), sql`; `)};
      END IF;
      RETURN OLD;
    END $$`.execute(db);
  await sql`CREATE TRIGGER links_forget_owner_clicks BEFORE DELETE ON links FOR EACH ROW EXECUTE FUNCTION links_forget_owner_clicks()`.execute(db);
}
