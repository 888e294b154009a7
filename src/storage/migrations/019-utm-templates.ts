// UTM templates (docs/api.md, UTM templates): an owner's saved sets of utm_* values for the link form's UTM
// builder, named uniquely per owner ignoring case.
import { type Kysely } from "kysely";

export function utmTemplates() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("utm_templates")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("name", "text", (c) => c.notNull())
        // The name in lower case: what "unique ignoring case" compares.
        .addColumn("name_key", "text", (c) => c.notNull())
        .addColumn("utm_source", "text")
        .addColumn("utm_medium", "text")
        .addColumn("utm_campaign", "text")
        .addColumn("utm_term", "text")
        .addColumn("utm_content", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("utm_templates_owner_name").on("utm_templates").columns(["owner_id", "name_key"]).unique().execute();
    },
  };
}
