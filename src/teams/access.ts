// Who may do what with an owner's links: the one permission check every link route goes through.
// A member's access lasts while the membership exists, the owner is active and the owner's plan
// allows sharing (the membership is kept meanwhile: access returns with the owner's status or plan);
// anything else is no access at all. An Enterprise owner's two-factor policy refuses a member without a second
// factor: a request for that owner's links fails with 2fa_setup_required, a read across owners leaves them out.
import type { Db } from "../storage/db.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { can } from "../accounts/plans.js";
import { DomainError } from "../shared/errors.js";
import { secondFactorDemand } from "../security/second-factor-policy.js";

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

const policyRefusal = () => new DomainError("2fa_setup_required", "This team requires two-factor sign-in: set it up under Security first");

/** The actor's role for `ownerId`'s links, or "2fa" when the owner's policy refuses the member (the caller decides how). */
async function resolveAccess(db: Db, actor: UserRow, ownerId: string | null): Promise<LinkAccess | "2fa"> {
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
  if ((await secondFactorDemand(db, actor, { teams: owner })).missing) return "2fa";
  return { role: "member", owner };
}

/**
 * The actor's role for the links of `ownerId`: "owner" for their own, "member" through an active
 * membership, "none" otherwise. Custom domains call this too ("the owner whose links a member manages").
 * A member the owner's two-factor policy refuses gets 2fa_setup_required (security/second-factor-policy.ts).
 */
export async function ownerAccess(db: Db, actor: UserRow, ownerId: string | null): Promise<LinkAccess> {
  const access = await resolveAccess(db, actor, ownerId);
  if (access === "2fa") throw policyRefusal();
  return access;
}

/**
 * As ownerAccess, but a member the owner's two-factor policy refuses has no access instead of an error: for checks
 * that run on their own, outside a request (a live feed's recheck ends the stream).
 */
export async function ownerAccessOrNone(db: Db, actor: UserRow, ownerId: string | null): Promise<LinkAccess> {
  const access = await resolveAccess(db, actor, ownerId);
  return access === "2fa" ? NONE : access;
}

/**
 * For reads across several owners (the actor's own links and its teams'): the owners of `ownerIds` the actor may
 * read. An owner whose two-factor policy refuses the actor is left out instead of failing the whole read; a
 * request for that owner alone still answers 2fa_setup_required (ownerAccess).
 */
export async function readableOwners(db: Db, actor: UserRow, ownerIds: Iterable<string>): Promise<Set<string>> {
  const allowed = new Set<string>();
  for (const ownerId of new Set(ownerIds)) {
    if ((await ownerAccessOrNone(db, actor, ownerId)).role !== "none") allowed.add(ownerId);
  }
  return allowed;
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
