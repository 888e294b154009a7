// Orphan visits (docs/orphan-visits.md): requests to the main host ("") or a custom domain that matched
// no link, counted per UTC day, host, path, referrer host and device class; no address, no row per request.
import { type Kysely } from "kysely";

export function orphanVisits() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("orphan_visits")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("host", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("referrer_host", "text", (c) => c.notNull())
        .addColumn("device", "text", (c) => c.notNull())
        .addColumn("visits", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("orphan_visits_pk", ["host", "day", "path", "referrer_host", "device"])
        .execute();
      await db.schema.createIndex("orphan_visits_day").on("orphan_visits").column("day").execute();
    },
  };
}
