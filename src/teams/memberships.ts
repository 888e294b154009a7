// Memberships: the lists of GET /api/team kept apart (my members, my pending invitations, teams I
// belong to), and the two ways out (the owner removes, the member leaves) that end access at once.
import { iso } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import { effectiveRole, sharingActive } from "./access.js";
import { publicInvitation } from "./invitation-view.js";
import { secondFactorDemand } from "../security/second-factor-policy.js";
import { withSecondFactor } from "../storage/second-factors.js";
import type { Membership, Team } from "../contract/teams.js";
import type { TeamManager } from "./roles.js";

function membershipQuery(db: Db) {
  return db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.owner_id")
    .select([
      "team_members.owner_id",
      "team_members.joined_at",
      "team_members.role",
      "users.email",
      "users.name",
      "users.status",
      "users.plan",
      "users.team_require_2fa",
    ]);
}

type MembershipRow = {
  owner_id: string;
  joined_at: number;
  role: string;
  email: string;
  name: string;
  status: string;
  plan: string;
  team_require_2fa: number;
};

/** `refused`: the owners whose two-factor policy the member has not met (their links answer 2fa_setup_required). */
function toMembership(r: MembershipRow, refused: readonly string[]): Membership {
  return {
    owner_id: r.owner_id,
    owner_email: r.email,
    owner_name: r.name,
    joined_at: iso(Number(r.joined_at)),
    active: sharingActive(r),
    requires_2fa: refused.includes(r.owner_id),
    role: effectiveRole(r, r.role),
  };
}

/** The owners of `member`'s teams whose two-factor policy refuses it until it sets up a second factor. */
async function refusingOwners(db: Db, member: Pick<UserRow, "id" | "is_admin">): Promise<string[]> {
  const demand = await secondFactorDemand(db, member, { teams: "all" });
  return demand.missing ? demand.teams : [];
}

export async function membershipOf(db: Db, ownerId: string, member: Pick<UserRow, "id" | "is_admin">): Promise<Membership | null> {
  const r = await membershipQuery(db).where("team_members.owner_id", "=", ownerId).where("team_members.member_id", "=", member.id).executeTakeFirst();
  return r ? toMembership(r, await refusingOwners(db, member)) : null;
}

/**
 * GET /api/team: the members and pending invitations of `team` (the actor's own, or a team it administers), and
 * the actor's own memberships.
 */
export async function overview(db: Db, actor: UserRow, team: TeamManager): Promise<Omit<Team, "collaborators_max">> {
  const [members, invitations, memberships, refused] = await Promise.all([
    db
      .selectFrom("team_members")
      .innerJoin("users", "users.id", "team_members.member_id")
      .select(["users.id", "users.email", "users.name", "team_members.joined_at", "team_members.joined_by", "team_members.role"])
      .where("team_members.owner_id", "=", team.owner.id)
      .orderBy("team_members.joined_at")
      .orderBy("users.email")
      .execute(),
    db
      .selectFrom("team_invitations")
      .selectAll()
      .where("owner_id", "=", team.owner.id)
      .where("state", "=", "pending")
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    membershipQuery(db).where("team_members.member_id", "=", actor.id).orderBy("team_members.joined_at").orderBy("users.email").execute(),
    refusingOwners(db, actor),
  ]);
  const withFactor = await withSecondFactor(
    db,
    members.map((m) => m.id),
  );
  return {
    owner_id: team.owner.id,
    role: team.role,
    members: members.map((m) => ({
      user_id: m.id,
      email: m.email,
      name: m.name,
      joined_at: iso(Number(m.joined_at)),
      joined_by: m.joined_by,
      two_factor: withFactor.has(m.id),
      role: effectiveRole(team.owner, m.role),
    })),
    invitations: invitations.map(publicInvitation),
    memberships: memberships.map((m) => toMembership(m, refused)),
  };
}

/** The member leaves a team (any plan, free included). */
export async function leaveTeam(db: Db, member: UserRow, ownerId: string): Promise<void> {
  const r = await db.deleteFrom("team_members").where("owner_id", "=", ownerId).where("member_id", "=", member.id).executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new DomainError("not_found", "You are not a member of this team");
}
