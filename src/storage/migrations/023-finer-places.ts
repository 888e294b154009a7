// Where clicks came from, finer (docs/api.md Statistics): each raw click keeps its region and city (from
// a GeoIP City database), its referrer's URL without query or fragment, and the UTM values of the short
// URL it was visited with; all null when unknown. The 24-hour statistics count them from raw clicks; the
// longer ranges read their breakdown rows (dimensions region, city, referrer_url, utm_*), written only for
// clicks that have the value, so the roll-up tables need no change.
import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

export function finerPlaces(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of dialect === "sqlite" ? ["clicks", "click_staging"] : ["clicks"]) {
        for (const column of ["region", "city", "referrer_url", "utm"]) await db.schema.alterTable(table).addColumn(column, "text").execute();
      }
    },
  };
}
