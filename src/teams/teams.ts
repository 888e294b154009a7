// TeamService: the teams feature's entry point for HTTP routes and the CLI.
import type { UserRow } from "../storage/schema.js";
import { MAX_COLLABORATORS, type TeamDeps } from "./deps.js";
import { accept, cancel, invite, mailSent, preview, resend } from "./invitations.js";
import type { Invitation, InvitationPreview, Membership, Team } from "../contract/teams.js";
import { leaveTeam, overview, removeMember } from "./memberships.js";
import { type LinkAccess, ownerAccess } from "./access.js";

export type { LinkAccess };

export class TeamService {
  constructor(private readonly deps: TeamDeps) {}

  async overview(actor: UserRow): Promise<Team> {
    return { ...(await overview(this.deps.db, actor)), collaborators_max: MAX_COLLABORATORS };
  }

  invite(owner: UserRow, email: string): Promise<Invitation> {
    return invite(this.deps, owner, email);
  }

  resend(owner: UserRow, invitationId: string): Promise<Invitation> {
    return resend(this.deps, owner, invitationId);
  }

  cancel(owner: UserRow, invitationId: string): Promise<Invitation> {
    return cancel(this.deps, owner, invitationId);
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

  removeMember(owner: UserRow, memberId: string): Promise<void> {
    return removeMember(this.deps.db, owner, memberId);
  }

  leave(member: UserRow, ownerId: string): Promise<void> {
    return leaveTeam(this.deps.db, member, ownerId);
  }

  /** The actor's role for an owner's links (owner, active member, none): for features that act on them. */
  accessTo(actor: UserRow, ownerId: string): Promise<LinkAccess> {
    return ownerAccess(this.deps.db, actor, ownerId);
  }
}
