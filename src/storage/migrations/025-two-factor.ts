// Two-factor sign-in and sessions you can see (docs/security.md): the TOTP factor of an account (secrets
// sealed, never in clear), its recovery codes (SHA-256 only), pending sign-ins waiting for their second
// step (the cookie's SHA-256 only), the browsers an account has signed in from (for the new-browser
// email), what a session shows of itself (a public id, browser, OS, country: no address), and the
// Enterprise owner's "require two-factor sign-in" for the team.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function twoFactor(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("sessions").addColumn("public_id", "text").execute();
      await db.schema.alterTable("sessions").addColumn("browser", "text").execute();
      await db.schema.alterTable("sessions").addColumn("os", "text").execute();
      await db.schema.alterTable("sessions").addColumn("country", "text").execute();
      // Sessions from before: a random public id each (never derived from the cookie or its hash).
      const random = dialect === "postgres" ? sql`substr(md5(random()::text || clock_timestamp()::text || id_hash), 1, 24)` : sql`lower(hex(randomblob(12)))`;
      await sql`UPDATE sessions SET public_id = ${random}`.execute(db);
      await db.schema.createIndex("sessions_public_id").on("sessions").column("public_id").unique().execute();

      await db.schema
        .alterTable("users")
        .addColumn("team_require_2fa", "integer", (c) => c.notNull().defaultTo(0))
        .execute();

      await db.schema
        .createTable("totp_factors")
        .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
        // The enabled secret and the one set up but not confirmed yet: both sealed (shared/secret-box.ts).
        .addColumn("secret_enc", "text")
        .addColumn("pending_enc", "text")
        .addColumn("pending_at", "bigint")
        .addColumn("enabled_at", "bigint")
        // The last 30-second step a code was accepted for: a code is good once.
        .addColumn("last_step", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("recovery_codes")
        .addColumn("code_hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("used_at", "bigint")
        .execute();
      await db.schema.createIndex("recovery_codes_user").on("recovery_codes").column("user_id").execute();

      await db.schema
        .createTable("pending_sign_ins")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("pending_sign_ins_user").on("pending_sign_ins").column("user_id").execute();

      await db.schema
        .createTable("known_browsers")
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        // "Firefox on Linux": browser and OS family, no versions.
        .addColumn("family", "text", (c) => c.notNull())
        .addColumn("first_seen_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("known_browsers_pk", ["user_id", "family"])
        .execute();
    },
  };
}
