// Tables of teams: invitations, their emailed links, and members with their roles (docs/teams.md, docs/roles.md).
import type { Generated } from "kysely";

export interface TeamInvitationsTable {
  id: string;
  owner_id: string;
  email: string;
  /** pending | accepted | cancelled */
  state: string;
  /** The last time the email was sent (or attempted). */
  sent_at: number;
  /** 1 when the mail transport accepted the last email. */
  send_confirmed: number;
  /** When the current link stops working. */
  expires_at: number;
  accepted_by: string | null;
  created_at: number;
  updated_at: number;
  /** The role the invitee joins with: admin, member or viewer (docs/roles.md). */
  role: Generated<string>;
}

export interface TeamInvitationTokensTable {
  token_hash: string;
  invitation_id: string;
  created_at: number;
  /** Set when a resend replaced this link. */
  replaced_at: number | null;
}

export interface TeamMembersTable {
  owner_id: string;
  member_id: string;
  joined_at: number;
  /** How the member joined: "invitation" or "sso" (each counts against its own allowance, docs/teams.md). */
  joined_by: Generated<MemberOrigin>;
  /** admin, member or viewer (docs/roles.md); the owner is the account itself, never a row here. */
  role: Generated<string>;
}

export type MemberOrigin = "invitation" | "sso";

export interface TeamTables {
  team_invitations: TeamInvitationsTable;
  team_invitation_tokens: TeamInvitationTokensTable;
  team_members: TeamMembersTable;
}
