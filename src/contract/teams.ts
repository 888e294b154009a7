// Team shapes (docs/api.md, Team): members, invitations as their sender sees them, memberships, and the
// invitation landing page's preview. An invitation's token is never in any of them (it is only in the email).
import { Type, type Static } from "typebox";
import { Body } from "./common.js";
import { ASSIGNABLE_ROLES, type AssignableRole, TEAM_ROLES, type TeamRole } from "./roles.js";

/** One of `values` (a union of literals: generated bodies and the SDK see each value). */
const roleUnion = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      { description },
    ),
  );

/** owner, admin, member or viewer: what each may do is the table of docs/roles.md (contract/roles.ts). */
export const TeamRoleSchema = roleUnion<TeamRole>(TEAM_ROLES, "owner, admin, member or viewer (docs/roles.md)");
/** The roles an invitation or a role change gives: admin and viewer need the owner on Enterprise (403 plan_required). */
export const AssignableRoleSchema = roleUnion<AssignableRole>(
  ASSIGNABLE_ROLES,
  "admin, member or viewer (admin and viewer: the owner on Enterprise, 403 plan_required otherwise; docs/roles.md)",
);

export const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  state: Type.String({ description: "pending, accepted or cancelled" }),
  sent_at: Type.String({ description: "When the email was last sent (or attempted)" }),
  send_confirmed: Type.Boolean({ description: "true only when the mail transport accepted the last email" }),
  expires_at: Type.String({ description: "When the current link stops working (7 days after sending)" }),
  can_resend_at: Type.String({ description: "Earliest resend: one minute after the last send" }),
  role: AssignableRoleSchema,
});
export type Invitation = Static<typeof InvitationSchema>;

export const MembershipSchema = Type.Object({
  owner_id: Type.String(),
  owner_email: Type.String(),
  owner_name: Type.String(),
  joined_at: Type.String(),
  active: Type.Boolean({ description: "false while the owner is suspended or the owner's plan no longer allows sharing" }),
  requires_2fa: Type.Boolean({
    description:
      "true while the owner (Enterprise) requires two-factor sign-in of members and you have not set it up: the owner's links answer 403 " +
      "2fa_setup_required, and reads across teams (such as GET /api/links/sparklines) leave them out, until you do",
  }),
  role: roleUnion<TeamRole>(
    TEAM_ROLES,
    "Your role in this team as it applies now (docs/roles.md): on a plan without team roles (below Enterprise) an admin acts as a member",
  ),
});
export type Membership = Static<typeof MembershipSchema>;

export const MemberSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  joined_at: Type.String(),
  joined_by: Type.Union([Type.Literal("invitation"), Type.Literal("sso")], {
    description:
      "invitation: accepted an emailed invitation (counts against collaborators_max); sso: signed in through the owner's single sign-on (counts against ENTERPRISE_MEMBERS_MAX)",
  }),
  two_factor: Type.Boolean({
    description:
      "true when the member has two-factor sign-in turned on: while the owner's policy (PUT /api/team/policy) requires it, a member without it " +
      "is refused the owner's links with 403 2fa_setup_required",
  }),
  role: TeamRoleSchema,
});
export type Member = Static<typeof MemberSchema>;

const TeamProperties = {
  owner_id: Type.String({ description: "The team shown: yours, or with ?owner= one you administer" }),
  role: roleUnion<TeamRole>(TEAM_ROLES, "Your role in the team shown: owner for your own, admin for one you administer"),
  members: Type.Array(MemberSchema),
  invitations: Type.Array(InvitationSchema),
  memberships: Type.Array(MembershipSchema),
  collaborators_max: Type.Integer({
    description:
      "collaborators the owner may invite, on Business and Enterprise alike: 2, members who joined by invitation and pending invitations together " +
      "(members made by single sign-on count apart, against ENTERPRISE_MEMBERS_MAX)",
  }),
};
/** My team's members, my pending invitations, and the teams I belong to. */
export const TeamSchema = Type.Object(TeamProperties);
export type Team = Static<typeof TeamSchema>;
export const TeamReply = Type.Object({ status: Type.Literal("success"), ...TeamProperties });
export type TeamReply = Static<typeof TeamReply>;

export const InvitationReply = Type.Object({ status: Type.Literal("success"), invitation: InvitationSchema });
export type InvitationReply = Static<typeof InvitationReply>;

export const InvitationPreviewSchema = Type.Object({
  email: Type.String(),
  inviter_name: Type.String(),
  inviter_email: Type.String(),
  state: Type.String({ description: "pending, accepted, cancelled, expired or replaced (a resend sent a newer link)" }),
  expires_at: Type.String(),
  role: AssignableRoleSchema,
});
export type InvitationPreview = Static<typeof InvitationPreviewSchema>;
export const InvitationPreviewReply = Type.Object({ status: Type.Literal("success"), invitation: InvitationPreviewSchema });
export type InvitationPreviewReply = Static<typeof InvitationPreviewReply>;

export const MembershipReply = Type.Object({ status: Type.Literal("success"), membership: MembershipSchema });
export type MembershipReply = Static<typeof MembershipReply>;

export const InviteBody = Body({ email: Type.String({ maxLength: 320 }), role: Type.Optional(AssignableRoleSchema) });
export const RoleBody = Body({ role: AssignableRoleSchema });
export const RoleReply = Type.Object({ status: Type.Literal("success"), user_id: Type.String(), role: TeamRoleSchema });
export type RoleReply = Static<typeof RoleReply>;
/** `?owner=` of the team routes: an Enterprise team you administer (admin role) instead of your own. */
export const TeamOwnerQuery = Type.Object({
  owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that team, for its admins (404 otherwise, 403 for other roles)" })),
});
export const TokenBody = Body({ token: Type.String({ maxLength: 500 }) });
