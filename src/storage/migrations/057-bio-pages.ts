// Bio pages (docs/bio-pages.md): an account's link-in-bio page at /{slug} on one of its hosts. `domain` is the
// host as links.domain spells it ("" for the main host), so a slug and an alias are compared by the same key; the
// blocks are a JSON array. `views` is the page's own visits, counted in memory and added here in batches.
import type { Kysely } from "kysely";

export function bioPages() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("bio_pages")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("slug", "text", (c) => c.notNull())
        .addColumn("title", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("picture_url", "text")
        .addColumn("theme", "text", (c) => c.notNull())
        // A JSON object of the custom theme's colours (#rrggbb), or null.
        .addColumn("colors", "text")
        .addColumn("blocks", "text", (c) => c.notNull())
        .addColumn("views", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("bio_pages_host_slug").on("bio_pages").columns(["domain", "slug"]).unique().execute();
      await db.schema.createIndex("bio_pages_owner").on("bio_pages").columns(["owner_id", "created_at"]).execute();
    },
  };
}
