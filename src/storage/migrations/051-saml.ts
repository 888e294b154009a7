// SAML 2.0 single sign-on on an Enterprise connection (docs/sso.md, SAML): which protocol the connection signs in
// with, the identity provider's settings and snip's own service-provider key pair per connection (the private key
// sealed), the requests under way bound to the browser that started them, and the assertion ids already used
// (kept until the assertion expires: a second use is refused by the primary key on either engine).
import type { Kysely } from "kysely";

export function saml() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("sso_connections")
        .addColumn("protocol", "text", (c) => c.notNull().defaultTo("oidc"))
        .execute();
      await db.schema
        .createTable("sso_saml")
        .addColumn("connection_id", "text", (c) => c.primaryKey().references("sso_connections.id").onDelete("cascade"))
        // The identity provider's settings: null until its owner gives its metadata (snip's side comes first).
        .addColumn("idp_entity_id", "text")
        .addColumn("idp_sso_url", "text")
        // "redirect" or "post": how snip sends its AuthnRequest to idp_sso_url.
        .addColumn("idp_sso_binding", "text")
        // A JSON array of the provider's signing certificates (PEM).
        .addColumn("idp_certs", "text")
        // Where the metadata was fetched from (null: pasted).
        .addColumn("idp_metadata_url", "text")
        .addColumn("sp_cert", "text", (c) => c.notNull())
        .addColumn("sp_key_sealed", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("sso_saml_requests")
        // SHA-256 of the random value in the browser's cookie.
        .addColumn("state_hash", "text", (c) => c.primaryKey())
        .addColumn("connection_id", "text", (c) => c.notNull().references("sso_connections.id").onDelete("cascade"))
        .addColumn("request_id", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("sso_saml_requests_expiry").on("sso_saml_requests").column("expires_at").execute();
      await db.schema
        .createTable("sso_saml_assertions")
        .addColumn("connection_id", "text", (c) => c.notNull().references("sso_connections.id").onDelete("cascade"))
        .addColumn("assertion_id", "text", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sso_saml_assertions_pk", ["connection_id", "assertion_id"])
        .execute();
      await db.schema.createIndex("sso_saml_assertions_expiry").on("sso_saml_assertions").column("expires_at").execute();
    },
  };
}
