// The provider identities single sign-on has signed in (docs/sso.md): the issuer and the subject (`sub`) the
// provider keeps for a person, bound to one account. A later sign-in finds the account by them, so an
// address the provider later gives to someone else does not open the first person's account. And when each
// verified SSO domain is due to be checked again (its TXT record still there).
import type { Kysely } from "kysely";

export function ssoIdentities() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("sso_identities")
        .addColumn("issuer", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("last_seen_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sso_identities_pk", ["issuer", "subject"])
        .execute();
      // One identity per account and provider: a second subject for the same account is refused.
      await db.schema.alterTable("sso_domains").addColumn("next_check_at", "bigint").execute();
      await db.schema.createIndex("sso_identities_user").on("sso_identities").columns(["user_id", "issuer"]).unique().execute();
    },
  };
}
