// Who may do what with an owner's links and team: the one permission check every team route goes through.
// The actor's role (owner, admin, member, viewer: contract/roles.ts) is read from the database on every request,
// so a role change holds at once on every instance; `may(action)` answers from the role table.
// A member's access lasts while the membership exists, the owner is active and the owner's plan
// allows sharing (the membership is kept meanwhile: access returns with the owner's status or plan);
// anything else is no access at all. An Enterprise owner's two-factor policy refuses a member without a second
// factor: a request for that owner's links fails with 2fa_setup_required, a read across owners leaves them out.
import type { Db } from "../storage/db.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { can } from "../accounts/plans.js";
import { DomainError } from "../shared/errors.js";
import { secondFactorDemand } from "../security/second-factor-policy.js";
import { type TeamAction, type TeamRole, canRole, roleOf } from "../contract/roles.js";

export type LinkRole = TeamRole | "none";

export interface LinkAccess {
  role: LinkRole;
  /** The account whose links these are (the actor itself for "owner"); null for "none". */
  owner: UserRow | null;
  /** May the actor do `action` on this owner's data (always false for "none")? */
  may(action: TeamAction): boolean;
}

function accessAs(role: TeamRole, owner: UserRow): LinkAccess {
  return { role, owner, may: (action) => canRole(role, action) };
}

const NONE: LinkAccess = { role: "none", owner: null, may: () => false };

/**
 * The role a membership gives today: its stored role while the owner's plan has team roles (Enterprise); on a
 * plan without them an admin is a member (SPEC.md's collaborator) and a viewer stays a viewer (never more rights).
 */
export function effectiveRole(owner: Pick<UserRow, "plan">, stored: string): TeamRole {
  const role = roleOf(stored);
  if (role === "owner") return "viewer";
  if (can(owner.plan, "team_roles")) return role;
  return role === "viewer" ? "viewer" : "member";
}

/** The refusal of an action the actor's role does not allow on a team it belongs to. */
export function roleRefusal(action: TeamAction, role: LinkRole): DomainError {
  return new DomainError("forbidden", `Your role in this team (${role}) does not allow this (${action})`, undefined, { role, action });
}

/** not_found without access at all (the team's existence is not revealed), forbidden when the role does not allow `action`. */
export function requireMay(access: LinkAccess, action: TeamAction, what = "No such team"): asserts access is LinkAccess & { owner: UserRow } {
  if (access.role === "none" || !access.owner) throw new DomainError("not_found", what);
  if (!access.may(action)) throw roleRefusal(action, access.role);
}

/** True while an owner's team may use its links: owner active, plan with sharing. */
export function sharingActive(owner: Pick<UserRow, "status" | "plan">): boolean {
  return owner.status === "active" && can(owner.plan, "team_invite");
}

const policyRefusal = () => new DomainError("2fa_setup_required", "This team requires two-factor sign-in: set it up under Security first");

/** The actor's role for `ownerId`'s links, or "2fa" when the owner's policy refuses the member (the caller decides how). */
async function resolveAccess(db: Db, actor: UserRow, ownerId: string | null): Promise<LinkAccess | "2fa"> {
  if (ownerId === null) return NONE;
  if (ownerId === actor.id) return accessAs("owner", actor);
  const row = await db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.owner_id")
    .selectAll("users")
    .select("team_members.role as member_role")
    .where("team_members.owner_id", "=", ownerId)
    .where("team_members.member_id", "=", actor.id)
    .executeTakeFirst();
  if (!row || !sharingActive(row)) return NONE;
  const { member_role, ...owner } = row;
  if ((await secondFactorDemand(db, actor, { teams: owner })).missing) return "2fa";
  return accessAs(effectiveRole(owner, member_role), owner);
}

/**
 * The actor's role for the links of `ownerId`: "owner" for their own, its membership's role (admin, member,
 * viewer) through an active membership, "none" otherwise. Custom domains call this too ("the owner whose links a member manages").
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
 * The account whose links (and tags) the actor works with for `action`: its own when `ownerId` is absent, else a
 * team owner's for an active member; not_found for anyone else (the team's existence is not revealed), forbidden
 * when the actor's role does not allow `action`.
 */
export async function managedOwner(
  db: Db,
  actor: UserRow,
  ownerId: string | undefined,
  action: TeamAction = "links.view",
): Promise<{ owner: UserRow; role: TeamRole; access: LinkAccess }> {
  const access = await ownerAccess(db, actor, ownerId ?? actor.id);
  requireMay(access, action);
  return { owner: access.owner, role: access.role as TeamRole, access };
}

/** The actor's role for one link (see ownerAccess). */
export function linkAccess(db: Db, actor: UserRow, link: Pick<LinkRow, "owner_id">): Promise<LinkAccess> {
  return ownerAccess(db, actor, link.owner_id);
}
