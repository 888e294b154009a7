// Folders (issue 58, docs/folders.md): an account's named groups of links, unique per owner ignoring case; a link
// is in at most one (links.folder_id, null: in none; deleting a folder leaves its links in none); an API key may
// be limited to some of the account's folders (api_keys.folder_ids, JSON of ids; null: every link).
import type { Kysely } from "kysely";

export function folders() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("folders")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        // The name in lower case: what "unique ignoring case" compares.
        .addColumn("name_key", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("folders_owner_name").on("folders").columns(["owner_id", "name_key"]).unique().execute();
      // Set null by the database too: a folder deleted while a link is moved into it leaves no dangling id.
      await db.schema
        .alterTable("links")
        .addColumn("folder_id", "text", (c) => c.references("folders.id").onDelete("set null"))
        .execute();
      // The list and the counts by folder, and a folder's deletion, walk a folder's links.
      await db.schema.createIndex("links_folder").on("links").columns(["folder_id", "created_at"]).execute();
      await db.schema.alterTable("api_keys").addColumn("folder_ids", "text").execute();
    },
  };
}
