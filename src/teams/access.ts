// Who may do what with an owner's links and team: the one permission check every team route goes through.
// The actor's role (owner, admin, member, viewer: contract/roles.ts) is read from the database on every request,
// so a role change holds at once on every instance; `may(action)` answers from the role table.
// A member's access lasts while the membership exists, the owner is active and the owner's plan
// allows sharing (the membership is kept meanwhile: access returns with the owner's status or plan);
// anything else is no access at all. An Enterprise owner's two-factor policy refuses a member without a second
// factor: a request for that owner's links fails with 2fa_setup_required, a read across owners leaves them out.
// A member's access to single folders (migration 054, docs/folders.md) is read in the same place, per request:
// `folders` says which of the owner's folders the actor does not see or does not change, and every path that
// reads or changes the owner's links asks requireLinkMay / requireFolderWrite / visibleFolderCondition.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { can } from "../accounts/plans.js";
import { DomainError, invalid } from "../shared/errors.js";
import { secondFactorDemand } from "../security/second-factor-policy.js";
import { type TeamAction, type TeamRole, canRole, effectiveFolderAccess, roleOf } from "../contract/roles.js";
import { groupFolderAccess } from "./folder-groups.js";

export type LinkRole = TeamRole | "none";

/** The actor's limits in the owner's folders (none for the owner itself): what folder access takes away from its role. */
export interface FolderLimits {
  /** Folders set to `none` for the actor: neither they nor their links exist for it. */
  hidden: ReadonlySet<string>;
  /** Folders the actor sees but does not change (`read`, for a role that otherwise edits links). */
  readOnly: ReadonlySet<string>;
}

const NO_LIMITS: FolderLimits = { hidden: new Set(), readOnly: new Set() };

export interface LinkAccess {
  role: LinkRole;
  /** The account whose links these are (the actor itself for "owner"); null for "none". */
  owner: UserRow | null;
  /** May the actor do `action` on this owner's data (always false for "none")? */
  may(action: TeamAction): boolean;
  folders: FolderLimits;
}

function accessAs(role: TeamRole, owner: UserRow, folders: FolderLimits = NO_LIMITS): LinkAccess {
  return { role, owner, may: (action) => canRole(role, action), folders };
}

const NONE: LinkAccess = { role: "none", owner: null, may: () => false, folders: NO_LIMITS };

/**
 * The member's folder accesses in `ownerId`'s team, as they apply to `role`: each folder's stated access, else what
 * the member's SCIM groups give it (teams/folder-groups.ts). Read on every request: nothing caches them.
 */
async function folderLimits(db: Db, ownerId: string, memberId: string, role: TeamRole): Promise<FolderLimits> {
  const [stated, grouped] = await Promise.all([
    db.selectFrom("folder_access").select(["folder_id", "access"]).where("owner_id", "=", ownerId).where("member_id", "=", memberId).execute(),
    groupFolderAccess(db, ownerId, { memberId }),
  ]);
  if (stated.length === 0 && grouped.length === 0) return NO_LIMITS;
  const access = new Map<string, string>(grouped.map((g) => [g.folder_id, g.access]));
  for (const r of stated) access.set(r.folder_id, r.access);
  const hidden = new Set<string>();
  const readOnly = new Set<string>();
  for (const [folderId, given] of access) {
    const level = effectiveFolderAccess(role, given);
    if (level === "none") hidden.add(folderId);
    else if (level === "read" && canRole(role, "links.edit")) readOnly.add(folderId);
  }
  return { hidden, readOnly };
}

/** Refused in a folder the actor only reads: a write's refusal names the folder's access. */
function folderReadOnly(action: TeamAction, role: LinkRole): DomainError {
  return new DomainError("forbidden", "Your access to this folder is read only", undefined, { role, action, folder_access: "read" });
}

const WRITES: ReadonlySet<TeamAction> = new Set(["links.edit", "links.delete"]);

/**
 * requireMay for one link of the owner: a link in a folder hidden from the actor answers `what` as not_found (as
 * another account's link), a change of a link in a folder it only reads is forbidden.
 */
export function requireLinkMay(
  access: LinkAccess,
  link: { folder_id: string | null },
  action: TeamAction,
  what = "No such link",
): asserts access is LinkAccess & { owner: UserRow } {
  if (link.folder_id !== null && access.folders.hidden.has(link.folder_id)) throw new DomainError("not_found", what);
  requireMay(access, action, what);
  if (link.folder_id !== null && WRITES.has(action) && access.folders.readOnly.has(link.folder_id)) throw folderReadOnly(action, access.role);
}

/** Filing a link in `folderId` (null: in none): a hidden folder is refused as one that does not exist, a read-only one is forbidden. */
export function requireFolderWrite(access: LinkAccess, folderId: string | null, field = "folder_id"): void {
  if (folderId === null) return;
  if (access.folders.hidden.has(folderId)) throw invalid(field, "No such folder");
  if (access.folders.readOnly.has(folderId)) throw folderReadOnly("links.edit", access.role);
}

/** The SQL that keeps the links the actor may see (`links.folder_id` outside its hidden folders); null when nothing is hidden. */
export function visibleFolderCondition(access: LinkAccess, column = "links.folder_id"): RawBuilder<boolean> | null {
  const hidden = [...access.folders.hidden];
  if (hidden.length === 0) return null;
  return sql<boolean>`(${sql.ref(column)} is null or ${sql.ref(column)} not in (${sql.join(hidden)}))`;
}

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
  const role = effectiveRole(owner, member_role);
  return accessAs(role, owner, await folderLimits(db, owner.id, actor.id, role));
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

/**
 * The owner of one of an account's resources found by id (a custom domain, a webhook, a click stream): the actor's
 * own, or a team owner's when the actor's role there allows `action`. A missing row (`ownerId` undefined) or a
 * caller outside the team is not_found as `what` (the resource's existence is not revealed); a team member whose
 * role does not allow `action` is forbidden with its role and the action.
 */
export async function resourceOwner(db: Db, actor: UserRow, ownerId: string | undefined, action: TeamAction, what: string): Promise<UserRow> {
  if (ownerId === undefined) throw new DomainError("not_found", what);
  const access = await ownerAccess(db, actor, ownerId);
  requireMay(access, action, what);
  return access.owner;
}

/** The actor's role for one link (see ownerAccess). */
export function linkAccess(db: Db, actor: UserRow, link: Pick<LinkRow, "owner_id">): Promise<LinkAccess> {
  return ownerAccess(db, actor, link.owner_id);
}
