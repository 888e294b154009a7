// Who may do what with an owner's links: the one permission check every link route goes through.
// A member's access lasts while the membership exists, the owner is active and the owner's plan
// allows sharing (the membership is kept meanwhile: access returns with the owner's status or plan);
// anything else is no access at all.
import type { Db } from "../storage/db.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { can } from "../accounts/plans.js";
import { DomainError } from "../shared/errors.js";
import { hasSecondFactor } from "../storage/second-factors.js";

export type LinkRole = "owner" | "member" | "none";

export interface LinkAccess {
  role: LinkRole;
  /** The account whose links these are (the actor itself for "owner"); null for "none". */
  owner: UserRow | null;
}

const NONE: LinkAccess = { role: "none", owner: null };

/** True while an owner's team may use its links: owner active, plan with sharing. */
export function sharingActive(owner: Pick<UserRow, "status" | "plan">): boolean {
  return owner.status === "active" && can(owner.plan, "team_invite");
}

/**
 * The actor's role for the links of `ownerId`: "owner" for their own, "member" through an active
 * membership, "none" otherwise. Custom domains call this too ("the owner whose links a member manages").
 */
export async function ownerAccess(db: Db, actor: UserRow, ownerId: string | null): Promise<LinkAccess> {
  if (ownerId === null) return NONE;
  if (ownerId === actor.id) return { role: "owner", owner: actor };
  const owner = await db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.owner_id")
    .selectAll("users")
    .where("team_members.owner_id", "=", ownerId)
    .where("team_members.member_id", "=", actor.id)
    .executeTakeFirst();
  if (!owner || !sharingActive(owner)) return NONE;
  // The Enterprise owner's policy (security/team-policy.ts): a member without a second factor is told to set one up.
  if (Number(owner.team_require_2fa) === 1 && can(owner.plan, "team_2fa_policy") && !(await hasSecondFactor(db, actor.id))) {
    throw new DomainError("2fa_setup_required", "This team requires two-factor sign-in: set it up under Security first");
  }
  return { role: "member", owner };
}

/**
 * The account whose links (and tags) the actor works with: its own when `ownerId` is absent, else a team
 * owner's for an active member; not_found for anyone else (the team's existence is not revealed).
 */
export async function managedOwner(db: Db, actor: UserRow, ownerId: string | undefined): Promise<{ owner: UserRow; role: "owner" | "member" }> {
  const access = await ownerAccess(db, actor, ownerId ?? actor.id);
  if (access.role === "none" || !access.owner) throw new DomainError("not_found", "No such team");
  return { owner: access.owner, role: access.role };
}

/** The actor's role for one link (see ownerAccess). */
export function linkAccess(db: Db, actor: UserRow, link: Pick<LinkRow, "owner_id">): Promise<LinkAccess> {
  return ownerAccess(db, actor, link.owner_id);
}
