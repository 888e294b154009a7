// The team page's and the invitation page's calls: invitations sent and answered, members, leaving a team.
import { call, snip } from "../shared/api";

const byId = (id: string) => ({ params: { path: { id } } });

export const teamApi = {
  invite: (email: string) => call(snip.POST("/api/team/invitations", { body: { email } })).then((r) => r.invitation),
  resendInvitation: (id: string) => call(snip.POST("/api/team/invitations/{id}/resend", byId(id))).then((r) => r.invitation),
  cancelInvitation: (id: string) => call(snip.DELETE("/api/team/invitations/{id}", byId(id))),
  removeMember: (user_id: string) => call(snip.DELETE("/api/team/members/{user_id}", { params: { path: { user_id } } })),
  leaveTeam: (owner_id: string) => call(snip.DELETE("/api/memberships/{owner_id}", { params: { path: { owner_id } } })),
  previewInvitation: (token: string) => call(snip.POST("/api/invitations/preview", { body: { token } }), true).then((r) => r.invitation),
  acceptInvitation: (token: string) => call(snip.POST("/api/invitations/accept", { body: { token } }), true).then((r) => r.membership),
};
