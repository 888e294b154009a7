// The team page's and the invitation page's calls: invitations sent and answered, members, leaving a team, and the
// Enterprise owner's policy (members need two-factor sign-in).
import { call, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const teamApi = {
  invite: (email: string) => call(snip.POST("/api/team/invitations", { body: { email } })).then((r) => r.invitation),
  resendInvitation: (id: string) => call(snip.POST("/api/team/invitations/{id}/resend", byId(id))).then((r) => r.invitation),
  cancelInvitation: (id: string) => call(snip.DELETE("/api/team/invitations/{id}", byId(id))),
  removeMember: (user_id: string) => call(snip.DELETE("/api/team/members/{user_id}", { params: { path: { user_id } } })),
  leaveTeam: (owner_id: string) => call(snip.DELETE("/api/memberships/{owner_id}", { params: { path: { owner_id } } })),
  previewInvitation: (token: string) => call(snip.POST("/api/invitations/preview", { body: { token } }), true).then((r) => r.invitation),
  policy: () => call(snip.GET("/api/team/policy")).then((r) => r.require_2fa),
  /** Needs a recent proof of the owner: api.ts asks for it ("Confirm it's you") and sends the call again. */
  setPolicy: (require_2fa: boolean) => call(snip.PUT("/api/team/policy", { body: { require_2fa } })).then((r) => r.require_2fa),
  acceptInvitation: (token: string) => call(snip.POST("/api/invitations/accept", { body: { token } }), true).then((r) => r.membership),
};
