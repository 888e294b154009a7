// The team of audit entries written before migration 052 (docs/audit.md, Older entries): the actions 052 records with a
// team get it from what the entry already holds, so the team's own log and its exports show them too.
// - team.role: before.owner_id (every such entry records the team's owner);
// - team.2fa_policy: the target is the owner;
// - sso.create, sso.update, sso.domain_verified, sso.saml_create, sso.saml_update: the connection's owner (the
//   connection still exists: its owner never changes); sso.delete: before.owner_id where recorded.
// Entries whose team cannot be told (an SSO connection since removed, an sso.delete without its owner) stay null: the
// operator's log keeps them. admin_audit is append-only by triggers: they are lifted and put back within one
// transaction, so no other writer ever sees the table without them, and a failure leaves both as they were.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

const SSO_OWNED = ["sso.create", "sso.update", "sso.domain_verified", "sso.saml_create", "sso.saml_update"];

/** The UPDATE statements, in the dialect's JSON functions; each only fills a missing team. */
function backfills(dialect: Dialect) {
  const ownerInBefore = dialect === "postgres" ? sql`(before::jsonb ->> 'owner_id')` : sql`json_extract(before, '$.owner_id')`;
  const validBefore = dialect === "postgres" ? sql`before IS NOT NULL AND before LIKE '{%'` : sql`json_valid(before) AND json_type(before) = 'object'`;
  const sso = sql.join(SSO_OWNED.map((a) => sql`${a}`));
  return [
    sql`UPDATE admin_audit SET team_id = ${ownerInBefore} WHERE team_id IS NULL AND action IN ('team.role', 'sso.delete') AND ${validBefore}`,
    sql`UPDATE admin_audit SET team_id = target_id WHERE team_id IS NULL AND action = 'team.2fa_policy'`,
    sql`UPDATE admin_audit SET team_id = (SELECT c.owner_id FROM sso_connections c WHERE c.id = admin_audit.target_id)
        WHERE team_id IS NULL AND target_type = 'sso_connection' AND action IN (${sso})`,
  ];
}

export function auditTeamBackfill(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === "postgres") {
        // The migrator runs this in a transaction (PostgreSQL's DDL is transactional).
        await sql`ALTER TABLE admin_audit DISABLE TRIGGER admin_audit_no_change`.execute(db);
        for (const q of backfills(dialect)) await q.execute(db);
        await sql`ALTER TABLE admin_audit ENABLE TRIGGER admin_audit_no_change`.execute(db);
        return;
      }
      // SQLite: the migrator runs no transaction; this one holds the lift, the updates and the triggers' return.
      await db.transaction().execute(async (trx) => {
        await sql`DROP TRIGGER admin_audit_no_update`.execute(trx);
        for (const q of backfills(dialect)) await q.execute(trx);
        await sql`CREATE TRIGGER admin_audit_no_update BEFORE UPDATE ON admin_audit
          BEGIN SELECT RAISE(ABORT, 'admin_audit is append-only'); END`.execute(trx);
      });
    },
  };
}
