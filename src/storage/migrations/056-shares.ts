// Shared statistics (docs/sharing.md): a link's, a tag's or a folder's statistics published at an unguessable
// address. The address's token is kept twice: its SHA-256 (what a visit is looked up by) and sealed with the
// instance's key (what lets the owner copy the address again); an optional password is kept as a password hash.
import type { Kysely } from "kysely";

export function shares() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("shares")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("token_sealed", "text", (c) => c.notNull())
        // Exactly one of the three: what is shared.
        .addColumn("link_id", "text", (c) => c.references("links.id").onDelete("cascade"))
        .addColumn("tag_id", "text", (c) => c.references("tags.id").onDelete("cascade"))
        .addColumn("folder_id", "text", (c) => c.references("folders.id").onDelete("cascade"))
        .addColumn("password_hash", "text")
        .addColumn("expires_at", "bigint")
        // A JSON array of the panels shown (docs/sharing.md).
        .addColumn("panels", "text", (c) => c.notNull())
        .addColumn("created_by", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("shares_owner").on("shares").columns(["owner_id", "created_at"]).execute();
    },
  };
}
