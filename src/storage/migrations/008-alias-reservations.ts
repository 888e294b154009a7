// Aliases a link gave up (deleted, renamed, or taken along with its owner's account) stay reserved per
// (domain, alias) for their last owner: a short address already shared must never start sending
// visitors to someone else's page. Triggers on links record every release, whichever path deletes or
// renames (a link's own deletion, its owner's account deletion by cascade, an operator's SQL), so no
// code path can forget it. owner_id has no foreign key on purpose: a deleted account's reservations
// keep its id, which no account will ever have again, so they block everyone. A signed-out link has
// no owner (NULL): its alias, once released, is reserved for nobody. Claims are checked in
// src/links/alias-reservations.ts.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function aliasReservations(dialect: Dialect) {
  return {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .createTable("alias_reservations")
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("alias", "text", (c) => c.notNull())
        .addColumn("owner_id", "text")
        .addColumn("released_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("alias_reservations_pk", ["domain", "alias"])
        .execute();
      // An upsert: a release always names the latest owner (a reservation is consumed when its owner
      // claims the alias again, so normally there is no row yet).
      const upsert = (now: string) => `INSERT INTO alias_reservations (domain, alias, owner_id, released_at)
          VALUES (OLD.domain, OLD.alias, OLD.owner_id, ${now})
          ON CONFLICT (domain, alias) DO UPDATE SET owner_id = excluded.owner_id, released_at = excluded.released_at`;
      if (dialect === "sqlite") {
        const now = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
        await sql.raw(`CREATE TRIGGER links_reserve_deleted AFTER DELETE ON links BEGIN ${upsert(now)}; END`).execute(db);
        await sql
          .raw(
            `CREATE TRIGGER links_reserve_renamed AFTER UPDATE OF domain, alias ON links
             WHEN OLD.domain IS NOT NEW.domain OR OLD.alias IS NOT NEW.alias BEGIN ${upsert(now)}; END`,
          )
          .execute(db);
        return;
      }
      await sql
        .raw(
          `CREATE FUNCTION reserve_released_alias() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             ${upsert("(extract(epoch FROM clock_timestamp()) * 1000)::bigint")};
             RETURN NULL;
           END $$`,
        )
        .execute(db);
      await sql`CREATE TRIGGER links_reserve_deleted AFTER DELETE ON links FOR EACH ROW EXECUTE FUNCTION reserve_released_alias()`.execute(db);
      await sql`CREATE TRIGGER links_reserve_renamed AFTER UPDATE OF domain, alias ON links FOR EACH ROW
        WHEN (OLD.domain IS DISTINCT FROM NEW.domain OR OLD.alias IS DISTINCT FROM NEW.alias)
        EXECUTE FUNCTION reserve_released_alias()`.execute(db);
    },
  };
}
