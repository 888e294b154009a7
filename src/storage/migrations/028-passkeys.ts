// Passkeys (docs/passkeys.md): several WebAuthn credentials per account, and the short-lived challenges of
// their registration and sign-in ceremonies (single use, bound to the session cookie).
import { type Kysely } from "kysely";

export function passkeys() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("passkeys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("credential_id", "text", (c) => c.notNull().unique())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("counter", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("transports", "text", (c) => c.notNull().defaultTo("[]"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("device_type", "text", (c) => c.notNull())
        .addColumn("backed_up", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_used_at", "bigint")
        .execute();
      await db.schema.createIndex("passkeys_user").on("passkeys").column("user_id").execute();
      await db.schema
        .createTable("passkey_challenges")
        .addColumn("binding_hash", "text", (c) => c.primaryKey())
        .addColumn("challenge", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("passkey_challenges_expiry").on("passkey_challenges").column("expires_at").execute();
    },
  };
}
