// The team an audit entry belongs to (docs/roles.md, Audit log): an Enterprise owner and their admins read and export
// the entries of their own team (role and folder access changes, single sign-on, SCIM); null for an operator's action
// on the instance and for an account holder's change to their own account.
import type { Kysely } from "kysely";

export function auditTeam() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("admin_audit").addColumn("team_id", "text").execute();
      await db.schema.createIndex("admin_audit_team").on("admin_audit").columns(["team_id", "id"]).execute();
    },
  };
}
