// SCIM 2.0 provisioning on an Enterprise connection (docs/scim.md): the connection's bearer token (SHA-256 only, one per
// connection: a new one replaces the old), the people the identity provider provisioned (their SCIM id, userName,
// externalId, active flag, bound to the snip account they became), and its groups with their members (a group whose
// displayName is a role name gives that role; the others are kept so that the provider's pushes succeed).
import type { Kysely } from "kysely";

export function scim() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("scim_tokens")
        .addColumn("connection_id", "text", (c) => c.primaryKey().references("sso_connections.id").onDelete("cascade"))
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("scim_users")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("connection_id", "text", (c) => c.notNull().references("sso_connections.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("user_name", "text", (c) => c.notNull())
        // lower(user_name): SCIM's userName is unique case-insensitively (RFC 7643 4.1.1).
        .addColumn("user_name_key", "text", (c) => c.notNull())
        .addColumn("external_id", "text")
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        // The rest of the provider's resource as snip keeps it (name, displayName, emails): JSON.
        .addColumn("attributes", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("scim_users_name", ["connection_id", "user_name_key"])
        .addUniqueConstraint("scim_users_account", ["connection_id", "user_id"])
        .execute();
      await db.schema.createIndex("scim_users_external").on("scim_users").columns(["connection_id", "external_id"]).execute();
      await db.schema
        .createTable("scim_groups")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("connection_id", "text", (c) => c.notNull().references("sso_connections.id").onDelete("cascade"))
        .addColumn("display_name", "text", (c) => c.notNull())
        .addColumn("display_key", "text", (c) => c.notNull())
        .addColumn("external_id", "text")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("scim_groups_name", ["connection_id", "display_key"])
        .execute();
      await db.schema
        .createTable("scim_group_members")
        .addColumn("group_id", "text", (c) => c.notNull().references("scim_groups.id").onDelete("cascade"))
        .addColumn("scim_user_id", "text", (c) => c.notNull().references("scim_users.id").onDelete("cascade"))
        .addPrimaryKeyConstraint("scim_group_members_pk", ["group_id", "scim_user_id"])
        .execute();
      await db.schema.createIndex("scim_group_members_user").on("scim_group_members").column("scim_user_id").execute();
    },
  };
}
