// What a link carries besides its addresses (docs/api.md, Links): a title and a private note, an archive
// mark, a fallback address once it expired or used its clicks, a social preview card, and when it was
// last clicked (kept with click_count by the click writers); indexes for the list sorted by clicks or
// by last click.
import { type Kysely } from "kysely";

export function linkDetails() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [name, type] of [
        ["title", "text"],
        ["note", "text"],
        ["archived_at", "bigint"],
        ["expired_url", "text"],
        ["preview_title", "text"],
        ["preview_description", "text"],
        ["preview_image", "text"],
        ["last_click_at", "bigint"],
      ] as const) {
        await db.schema.alterTable("links").addColumn(name, type).execute();
      }
      await db.schema.createIndex("links_owner_clicks").on("links").columns(["owner_id", "click_count", "id"]).execute();
      await db.schema.createIndex("links_owner_last_click").on("links").columns(["owner_id", "last_click_at", "id"]).execute();
    },
  };
}
