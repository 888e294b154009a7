// The apps a host is associated with (docs/deep-links.md): one row per custom domain that has any (deleted with
// the domain), and the row "main" for the main host (the operator's). The lists are JSON as the API takes them.
import type { Kysely } from "kysely";

export function appAssociations() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("app_associations")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("domain_id", "text", (c) => c.unique().references("domains.id").onDelete("cascade"))
        .addColumn("ios", "text", (c) => c.notNull())
        .addColumn("android", "text", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}
