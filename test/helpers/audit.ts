// Audit entries for tests of the team's audit log, its exports and its stream events: a team member with a role, and
// an entry appended as the features append them (AuditLog.record in a transaction).
import type { TestServer } from "./server.js";
import { testAccount, type TestAccount } from "./team.js";
import type { TeamRole } from "../../src/contract/roles.js";
import type { AuditRecord } from "../../src/admin/audit-log.js";

let n = 0;

/** An account joined to `owner`'s team with `role` (as single sign-on joins one). */
export async function teamMember(server: TestServer, owner: TestAccount, role: TeamRole): Promise<TestAccount> {
  const account = await testAccount(server, `audit-${role}-${++n}-${Date.now().toString(36)}@example.com`);
  await server.ctx.storage.db
    .insertInto("team_members")
    .values({ owner_id: owner.id, member_id: account.id, joined_at: Date.now(), joined_by: "sso", role })
    .execute();
  return account;
}

/** Appends an entry as the features do: in a transaction, through AuditLog.record. */
export function record(server: TestServer, actor: { id: string | null; email: string }, at: number, e: Partial<AuditRecord>): Promise<void> {
  return server.ctx.storage.db
    .transaction()
    .execute((trx) => server.ctx.audit.record(trx, actor, at, { action: "team.role", targetType: "account", targetId: "t1", summary: "s", ...e }));
}
