// Scoped API keys (docs/api.md, API keys): each key's scopes (a JSON array) and an optional expiry. Keys made
// before scopes existed keep doing what they did: the external creation API, ["links:create"].
import type { Kysely } from "kysely";

export function keyScopes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("api_keys")
        .addColumn("scopes", "text", (c) => c.notNull().defaultTo('["links:create"]'))
        .execute();
      await db.schema.alterTable("api_keys").addColumn("expires_at", "bigint").execute();
    },
  };
}
