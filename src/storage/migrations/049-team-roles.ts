// Team roles (docs/roles.md): each membership and each invitation names a role. Existing members are
// collaborators as SPEC.md describes them: member. The owner is the account itself and is never stored here.
import type { Kysely } from "kysely";

export function teamRoles() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("team_members")
        .addColumn("role", "text", (c) => c.notNull().defaultTo("member"))
        .execute();
      await db.schema
        .alterTable("team_invitations")
        .addColumn("role", "text", (c) => c.notNull().defaultTo("member"))
        .execute();
    },
  };
}
