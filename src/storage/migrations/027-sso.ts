// Single sign-on (docs/sso.md): Enterprise owners' OpenID Connect connections with their email domains, the
// short-lived rows of sign-ins under way (state, nonce and PKCE verifier, sealed), and the operators'
// break-glass accounts that still sign in with a password under OIDC_ONLY.
import type { Kysely } from "kysely";

export function sso() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("sso_connections")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner_id", "text", (c) => c.notNull().unique().references("users.id").onDelete("cascade"))
        .addColumn("issuer", "text", (c) => c.notNull())
        .addColumn("client_id", "text", (c) => c.notNull())
        .addColumn("client_secret_sealed", "text", (c) => c.notNull())
        .addColumn("require_sso", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      // A domain belongs to one connection on the whole instance: whoever proves it first.
      await db.schema
        .createTable("sso_domains")
        .addColumn("domain", "text", (c) => c.primaryKey())
        .addColumn("connection_id", "text", (c) => c.notNull().references("sso_connections.id").onDelete("cascade"))
        .addColumn("txt_token", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("next_action", "text")
        .addColumn("last_checked_at", "bigint")
        .addColumn("verified_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sso_domains_connection").on("sso_domains").column("connection_id").execute();
      await db.schema
        .createTable("sso_logins")
        .addColumn("state_hash", "text", (c) => c.primaryKey())
        .addColumn("connection_id", "text", (c) => c.references("sso_connections.id").onDelete("cascade"))
        .addColumn("checks_sealed", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sso_logins_expiry").on("sso_logins").column("expires_at").execute();
      await db.schema
        .createTable("sso_break_glass")
        .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}
