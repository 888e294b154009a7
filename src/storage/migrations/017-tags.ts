// Tags (docs/api.md, Tags): an owner's labels for links, unique per owner ignoring case, and which
// links carry which (a link carries at most 10; deleting a tag or a link removes its rows here).
import { type Kysely } from "kysely";

export function tags() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("tags")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        // The name in lower case: what "unique ignoring case" compares and what lookups by name use.
        .addColumn("name_key", "text", (c) => c.notNull())
        .addColumn("color", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("tags_owner_name").on("tags").columns(["owner_id", "name_key"]).unique().execute();

      await db.schema
        .createTable("link_tags")
        .addColumn("link_id", "text", (c) => c.notNull().references("links.id").onDelete("cascade"))
        .addColumn("tag_id", "text", (c) => c.notNull().references("tags.id").onDelete("cascade"))
        .addPrimaryKeyConstraint("link_tags_pk", ["link_id", "tag_id"])
        .execute();
      // The list filtered by tag walks a tag's links.
      await db.schema.createIndex("link_tags_tag").on("link_tags").columns(["tag_id", "link_id"]).execute();
    },
  };
}
