// Team roles on the server (docs/roles.md): who manages a team's members and invitations, which roles they may
// give, and the role change itself (PATCH /api/team/members/{user_id}), audited in its own transaction. The table
// of what each role may do is contract/roles.ts; teams/access.ts reads the actor's role per request from the
// database (nothing caches it), so a change holds at once on every instance.
import type { Kysely } from "kysely";
import { DomainError } from "../shared/errors.js";
import type { Db } from "../storage/db.js";
import type { Database, UserRow } from "../storage/schema.js";
import { requireCapability } from "../accounts/plans.js";
import { type AssignableRole, type TeamRole, DEFAULT_ROLE, mayChangeRole } from "../contract/roles.js";
import { effectiveRole, ownerAccess, requireMay, roleRefusal } from "./access.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { AuditWriter } from "../storage/audit-writer.js";

export interface TeamManager {
  /** The team's owner (the actor itself for its own team). */
  owner: UserRow;
  /** The actor's role in that team: owner, or an admin through its membership. */
  role: TeamRole;
}

/**
 * The team whose members and invitations `actor` manages: its own without `ownerId`, else the team of `ownerId`
 * for a role with members.manage (admin); not_found without access, forbidden for a member or viewer.
 */
export async function teamManager(db: Db, actor: UserRow, ownerId: string | undefined): Promise<TeamManager> {
  if (ownerId === undefined || ownerId === actor.id) return { owner: actor, role: "owner" };
  const access = await ownerAccess(db, actor, ownerId);
  requireMay(access, "members.manage");
  return { owner: access.owner, role: access.role as TeamRole };
}

/**
 * A role `manager` may give on its team: any but owner (the schema refuses it), roles other than member only while
 * the owner's plan has team roles (Enterprise: plan_required otherwise), and none ranked at or above an admin's own.
 */
export function requireAssignable(manager: TeamManager, role: AssignableRole): void {
  if (role !== DEFAULT_ROLE) requireCapability(manager.owner.plan, "team_roles", `The ${role} role`);
  if (!mayChangeRole(manager.role, "viewer", role)) throw roleRefusal("members.manage", manager.role);
}

/** A member of the manager's team that the manager may change or remove (ranked below it); not_found when not a member. */
async function changeableMember(db: Kysely<Database>, manager: TeamManager, memberId: string, to: TeamRole | null): Promise<{ from: TeamRole; email: string }> {
  // The owner is the account itself: no role change or removal reaches it (an admin's attempt is refused, not hidden).
  if (memberId === manager.owner.id) throw new DomainError("forbidden", "The team's owner keeps the owner role", undefined, { member_role: "owner" });
  const row = await db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.member_id")
    .select(["team_members.role", "users.email"])
    .where("team_members.owner_id", "=", manager.owner.id)
    .where("team_members.member_id", "=", memberId)
    .executeTakeFirst();
  if (!row) throw new DomainError("not_found", "No such member in this team");
  const from = effectiveRole(manager.owner, row.role);
  if (!mayChangeRole(manager.role, from, to)) {
    throw new DomainError("forbidden", `As ${manager.role} you cannot change or remove a member whose role is ${from}`, undefined, {
      role: manager.role,
      member_role: from,
    });
  }
  return { from, email: row.email };
}

export interface RoleChangeDeps {
  db: Db;
  /** The owner's lock: concurrent changes of one team's roles run one after the other (each audit entry's before is the last after). */
  caps: OwnerCaps;
  now: () => number;
  audit: AuditWriter;
}

/** Gives a member a new role (audited); the change holds from the member's next request, on every instance. */
export async function changeRole(deps: RoleChangeDeps, actor: UserRow, manager: TeamManager, memberId: string, role: AssignableRole): Promise<TeamRole> {
  requireAssignable(manager, role);
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await deps.caps.hold(trx, manager.owner.id);
    const { from, email } = await changeableMember(trx, manager, memberId, role);
    if (from === role) return;
    await trx.updateTable("team_members").set({ role }).where("owner_id", "=", manager.owner.id).where("member_id", "=", memberId).execute();
    await deps.audit.record(trx, { id: actor.id, email: actor.email }, now, {
      action: "team.role",
      teamId: manager.owner.id,
      targetType: "account",
      targetId: memberId,
      summary: `changed ${email}'s role in ${manager.owner.email}'s team from ${from} to ${role}`,
      before: { owner_id: manager.owner.id, role: from },
      after: { owner_id: manager.owner.id, role },
    });
  });
  return role;
}

/** Removes a member the manager may remove (the owner anyone, an admin members and viewers only). */
export async function removeManagedMember(db: Db, manager: TeamManager, memberId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await changeableMember(trx, manager, memberId, null);
    await trx.deleteFrom("team_members").where("owner_id", "=", manager.owner.id).where("member_id", "=", memberId).execute();
  });
}
