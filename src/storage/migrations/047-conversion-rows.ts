// Conversions per breakdown row (docs/conversions.md, Statistics): a tracked click also keeps the browser, the
// operating system and the short URL's UTM values of its visit, so that a lead or sale counts in the rows of the
// click it is attributed to, as clicks are broken down; sales read per account and period by an index; a link
// imported from Dub keeps the leads, sales and revenue Dub counted before (beside imported_clicks).
import type { Kysely } from "kysely";

export function conversionRows() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Null for clicks stored before: their leads and sales count under "unknown" (no UTM row).
      await db.schema.alterTable("tracked_clicks").addColumn("browser", "text").execute();
      await db.schema.alterTable("tracked_clicks").addColumn("os", "text").execute();
      // The normalised string of clicks/utm-values.ts ("utm_source=news&utm_campaign=spring"), null without any.
      await db.schema.alterTable("tracked_clicks").addColumn("utm", "text").execute();
      await db.schema.createIndex("conversion_sales_owner").on("conversion_sales").columns(["owner_id", "created_at"]).execute();
      // Created only for a link imported with counts: no column on links, whose rows every redirect caches.
      await db.schema
        .createTable("link_imported_conversions")
        .addColumn("link_id", "text", (c) => c.primaryKey().references("links.id").onDelete("cascade"))
        .addColumn("leads", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("sales", "bigint", (c) => c.notNull().defaultTo(0))
        // A JSON object currency -> minor units ({} when the source gave no amount).
        .addColumn("revenue", "text", (c) => c.notNull().defaultTo("{}"))
        .execute();
    },
  };
}
