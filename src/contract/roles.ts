// The team roles and what each may do (docs/roles.md): the one table the server enforces (teams/access.ts,
// LinkAccess.may) and the dashboard reads (canRole), re-exported by tables.ts for the dashboard. Imports nothing.

/** From the highest rank down: a role acts only on roles below its own (the owner on all). */
export const TEAM_ROLES = ["owner", "admin", "member", "viewer"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
/** The roles an invitation or a role change may give: the owner is the account itself, never given. */
export const ASSIGNABLE_ROLES = ["admin", "member", "viewer"] as const satisfies readonly TeamRole[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];
/** A Business collaborator's role; the others need the owner on Enterprise (capability team_roles). */
export const DEFAULT_ROLE: AssignableRole = "member";

export const TEAM_ACTIONS = [
  /** See the team's links (every role). */
  "links.view",
  "links.create",
  /** Edit a link's fields, archive, tag it; create tags and UTM templates for the team. */
  "links.edit",
  "links.delete",
  /** Rename and delete the team's tags and UTM templates. */
  "labels.manage",
  /** Statistics, analytics, the live feed and exports. */
  "stats.view",
  "domains.manage",
  /** Webhooks and click streams. */
  "webhooks.manage",
  /** Invite, resend, cancel; change roles of and remove members ranked below oneself. */
  "members.manage",
  /** Single sign-on, SCIM and the team's policies (two-factor). */
  "security.manage",
  "audit.view",
] as const;
export type TeamAction = (typeof TEAM_ACTIONS)[number];

const VIEWER: TeamAction[] = ["links.view", "stats.view"];
const MEMBER: TeamAction[] = [...VIEWER, "links.create", "links.edit"];
const ADMIN: TeamAction[] = [...MEMBER, "links.delete", "labels.manage", "domains.manage", "webhooks.manage", "members.manage", "audit.view"];

/** What each role may do on its team's data. */
export const ROLE_ACTIONS: Readonly<Record<TeamRole, ReadonlySet<TeamAction>>> = {
  owner: new Set(TEAM_ACTIONS),
  admin: new Set(ADMIN),
  member: new Set(MEMBER),
  viewer: new Set(VIEWER),
};

export const ROLE_LABELS: Readonly<Record<TeamRole, string>> = { owner: "Owner", admin: "Admin", member: "Member", viewer: "Viewer" };

export const TEAM_ACTION_LABELS: Readonly<Record<TeamAction, string>> = {
  "links.view": "see links",
  "links.create": "create links",
  "links.edit": "edit links",
  "links.delete": "delete links",
  "labels.manage": "rename and delete tags and UTM templates",
  "stats.view": "statistics and exports",
  "domains.manage": "custom domains",
  "webhooks.manage": "webhooks and streams",
  "members.manage": "members and invitations",
  "security.manage": "single sign-on, SCIM and policies",
  "audit.view": "the audit log",
};

export function isTeamRole(value: string): value is TeamRole {
  return (TEAM_ROLES as readonly string[]).includes(value);
}

/** A stored role read defensively: anything unknown is the least one (viewer), never more. */
export function roleOf(value: string | null | undefined): TeamRole {
  return value !== null && value !== undefined && isTeamRole(value) ? value : "viewer";
}

/** A stored invitation's or membership's role (never owner): anything else is viewer. */
export function assignableRoleOf(value: string | null | undefined): AssignableRole {
  return (ASSIGNABLE_ROLES as readonly string[]).includes(value ?? "") ? (value as AssignableRole) : "viewer";
}

/** May `role` do `action` on its team's data? */
export function canRole(role: TeamRole, action: TeamAction): boolean {
  return ROLE_ACTIONS[role].has(action);
}

/** Higher for higher roles: owner 3, admin 2, member 1, viewer 0. */
export function roleRank(role: TeamRole): number {
  return TEAM_ROLES.length - 1 - TEAM_ROLES.indexOf(role);
}

/**
 * May an actor with role `actor` change a member from `from` to `to` (or remove them, `to` null)? Only with
 * members.manage, only on a member ranked strictly below the actor, and only to a role not above the actor's
 * own: an admin makes and unmakes members and viewers, and other admins only the owner does. Nobody makes an owner.
 */
export function mayChangeRole(actor: TeamRole, from: TeamRole, to: TeamRole | null): boolean {
  if (!canRole(actor, "members.manage")) return false;
  if (from === "owner" || to === "owner") return false;
  if (actor === "owner") return true;
  return roleRank(from) < roleRank(actor) && (to === null || roleRank(to) < roleRank(actor));
}

/** A member's access to one folder of its team (docs/folders.md, Access): lowest first. */
export const FOLDER_ACCESS = ["none", "read", "write"] as const;
export type FolderAccess = (typeof FOLDER_ACCESS)[number];

export function isFolderAccess(value: string): value is FolderAccess {
  return (FOLDER_ACCESS as readonly string[]).includes(value);
}

/** A role's access to a folder nobody set an access on: write for a role that edits links, read otherwise. */
export function defaultFolderAccess(role: TeamRole): FolderAccess {
  return canRole(role, "links.edit") ? "write" : "read";
}

/**
 * What a member may do in a folder: the stated access (a stored value outside the list reads as none, never more),
 * never above the role's own (a viewer given write still only reads); the role's default without one. The owner: write.
 */
export function effectiveFolderAccess(role: TeamRole, stated: string | null | undefined): FolderAccess {
  const byRole = defaultFolderAccess(role);
  if (role === "owner" || stated === null || stated === undefined) return byRole;
  const given: FolderAccess = isFolderAccess(stated) ? stated : "none";
  return FOLDER_ACCESS.indexOf(given) < FOLDER_ACCESS.indexOf(byRole) ? given : byRole;
}
