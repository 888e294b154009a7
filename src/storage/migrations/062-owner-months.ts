// Account analytics over months and years (bench:big, issue 60): owner_breakdown_month sums the monthly
// breakdown rows (click_breakdown_month) of each owner's links, as owner_breakdown sums their daily ones, so
// that a year of an account's countries, devices or referrers reads a few rows a month instead of every
// day's. It is kept exactly as the links' monthly rows are: a roll-up that writes a link's monthly rows adds
// them to its owner's; the monthly compaction adds each link it compacts; a deleted link's rows are taken out
// by a trigger, as migration 022's trigger does for the daily ones. Statistics read a month from it only
// once click_rollup_state.months_through says every link's rows of that month are there.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function ownerMonths(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const withoutRowid = dialect === "sqlite" ? sql` WITHOUT ROWID` : sql``;
      await sql`CREATE TABLE owner_breakdown_month (
        owner_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        month text NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        clicks bigint NOT NULL,
        visitors bigint NOT NULL,
        CONSTRAINT owner_breakdown_month_pk PRIMARY KEY (owner_id, dimension, month, value)
      )${withoutRowid}`.execute(db);
      await sql`INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors)
        SELECT l.owner_id, m.month, m.dimension, m.value, sum(m.clicks), sum(m.visitors)
        FROM click_breakdown_month m JOIN links l ON l.id = m.link_id
        WHERE l.owner_id IS NOT NULL GROUP BY l.owner_id, m.dimension, m.month, m.value`.execute(db);
      // A link deleted with its owner (the cascade from users) leaves nothing to take out: the owner's rows go too.
      const forget = (old: string) =>
        sql`UPDATE owner_breakdown_month SET
          clicks = clicks - (SELECT m.clicks FROM click_breakdown_month m WHERE m.link_id = ${sql.raw(old)}.id AND m.dimension = owner_breakdown_month.dimension AND m.month = owner_breakdown_month.month AND m.value = owner_breakdown_month.value),
          visitors = visitors - (SELECT m.visitors FROM click_breakdown_month m WHERE m.link_id = ${sql.raw(old)}.id AND m.dimension = owner_breakdown_month.dimension AND m.month = owner_breakdown_month.month AND m.value = owner_breakdown_month.value)
        WHERE owner_id = ${sql.raw(old)}.owner_id AND EXISTS (SELECT 1 FROM click_breakdown_month m WHERE m.link_id = ${sql.raw(old)}.id AND m.dimension = owner_breakdown_month.dimension AND m.month = owner_breakdown_month.month AND m.value = owner_breakdown_month.value)`;
      if (dialect === "sqlite") {
        await sql`CREATE TRIGGER links_forget_owner_months BEFORE DELETE ON links
          WHEN OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) BEGIN
          ${forget("OLD")};
        END`.execute(db);
        return;
      }
      await sql`CREATE FUNCTION links_forget_owner_months() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.owner_id IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE id = OLD.owner_id) THEN
            ${forget("OLD")};
          END IF;
          RETURN OLD;
        END $$`.execute(db);
      await sql`CREATE TRIGGER links_forget_owner_months BEFORE DELETE ON links FOR EACH ROW EXECUTE FUNCTION links_forget_owner_months()`.execute(db);
    },
  };
}
