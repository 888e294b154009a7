// Team shapes (docs/api.md, Team): members, invitations as their sender sees them, memberships, and the
// invitation landing page's preview. An invitation's token is never in any of them (it is only in the email).
import { Type, type Static } from "typebox";
import { Body } from "./common.js";

export const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  state: Type.String({ description: "pending, accepted or cancelled" }),
  sent_at: Type.String({ description: "When the email was last sent (or attempted)" }),
  send_confirmed: Type.Boolean({ description: "true only when the mail transport accepted the last email" }),
  expires_at: Type.String({ description: "When the current link stops working (7 days after sending)" }),
  can_resend_at: Type.String({ description: "Earliest resend: one minute after the last send" }),
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
});
export type Member = Static<typeof MemberSchema>;

const TeamProperties = {
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
});
export type InvitationPreview = Static<typeof InvitationPreviewSchema>;
export const InvitationPreviewReply = Type.Object({ status: Type.Literal("success"), invitation: InvitationPreviewSchema });
export type InvitationPreviewReply = Static<typeof InvitationPreviewReply>;

export const MembershipReply = Type.Object({ status: Type.Literal("success"), membership: MembershipSchema });
export type MembershipReply = Static<typeof MembershipReply>;

export const InviteBody = Body({ email: Type.String({ maxLength: 320 }) });
export const TokenBody = Body({ token: Type.String({ maxLength: 500 }) });
