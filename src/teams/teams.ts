// TeamService: the teams feature's entry point for HTTP routes and the CLI. Managing a team (members,
// invitations, roles) is the owner's, or an admin's of the owner's team with `ownerId` (teams/roles.ts).
import type { UserRow } from "../storage/schema.js";
import { MAX_COLLABORATORS, type TeamDeps } from "./deps.js";
import { accept, cancel, invite, mailSent, preview, resend } from "./invitations.js";
import type { Invitation, InvitationPreview, Membership, Team } from "../contract/teams.js";
import { leaveTeam, overview } from "./memberships.js";
import { type LinkAccess, ownerAccess } from "./access.js";
import type { AuditWriter } from "../storage/audit-writer.js";
import { changeRole, removeManagedMember, requireAssignable, teamManager } from "./roles.js";
import { type AssignableRole, type TeamRole, DEFAULT_ROLE } from "../contract/roles.js";

export type { LinkAccess };

export class TeamService {
  constructor(private readonly deps: TeamDeps & { audit: AuditWriter }) {}

  /** The actor's own team (or with `ownerId` one it administers), and its memberships. */
  async overview(actor: UserRow, ownerId?: string): Promise<Team> {
    const team = await teamManager(this.deps.db, actor, ownerId);
    return { ...(await overview(this.deps.db, actor, team)), collaborators_max: MAX_COLLABORATORS };
  }

  async invite(actor: UserRow, email: string, role: AssignableRole = DEFAULT_ROLE, ownerId?: string): Promise<Invitation> {
    const team = await teamManager(this.deps.db, actor, ownerId);
    requireAssignable(team, role);
    return invite(this.deps, team.owner, email, role);
  }

  async resend(actor: UserRow, invitationId: string, ownerId?: string): Promise<Invitation> {
    const team = await teamManager(this.deps.db, actor, ownerId);
    return resend(this.deps, team.owner, invitationId, team.role);
  }

  async cancel(actor: UserRow, invitationId: string, ownerId?: string): Promise<Invitation> {
    const team = await teamManager(this.deps.db, actor, ownerId);
    return cancel(this.deps, team.owner, invitationId, team.role);
  }

  /** Called by the outbox when an invitation's email went after its request answered. */
  invitationMailSent(invitationId: string): Promise<void> {
    return mailSent(this.deps, invitationId);
  }

  preview(token: string): Promise<InvitationPreview> {
    return preview(this.deps, token);
  }

  accept(actor: UserRow | null, token: string): Promise<Membership> {
    return accept(this.deps, actor, token);
  }

  /** The owner removes anyone (any plan, even suspended: it only takes access away); an admin members and viewers. */
  async removeMember(actor: UserRow, memberId: string, ownerId?: string): Promise<void> {
    await removeManagedMember(this.deps.db, await teamManager(this.deps.db, actor, ownerId), memberId);
  }

  /** PATCH /api/team/members/{user_id}: the member's new role (audited; holds from its next request on every instance). */
  async changeRole(actor: UserRow, memberId: string, role: AssignableRole, ownerId?: string): Promise<TeamRole> {
    const team = await teamManager(this.deps.db, actor, ownerId);
    return changeRole({ db: this.deps.db, caps: this.deps.caps, now: () => this.deps.clock.now(), audit: this.deps.audit }, actor, team, memberId, role);
  }

  leave(member: UserRow, ownerId: string): Promise<void> {
    return leaveTeam(this.deps.db, member, ownerId);
  }

  /** The actor's role for an owner's links (owner, admin, member, viewer, none): for features that act on them. */
  accessTo(actor: UserRow, ownerId: string): Promise<LinkAccess> {
    return ownerAccess(this.deps.db, actor, ownerId);
  }
}
