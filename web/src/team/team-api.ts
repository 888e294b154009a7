// The team page's and the invitation page's calls: invitations sent and answered, members, leaving a team, and the
// Enterprise owner's policy (members need two-factor sign-in).
import { call, snip } from "../shared/api";

import type { AssignableRole } from "@contract/tables";
import type { AuditExportFormat } from "@contract/audit";

/** `owner`: a team the user administers (?owner=, docs/roles.md); undefined for the user's own. */
const byId = (id: string, owner?: string) => ({ params: { path: { id }, query: { owner } } });
const byMember = (user_id: string, owner?: string) => ({ params: { path: { user_id }, query: { owner } } });

/** The team audit log's filters as the page keeps them ("" for none). */
export interface TeamAuditFilters {
  action: string;
  actor: string;
  target: string;
  from: string;
  to: string;
}

/** The query without its empty filters (the server refuses an empty day). */
function clean<T extends object>(query: T): Partial<T> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== "" && v !== undefined)) as Partial<T>;
}

/** The address of an export of the filters (CSV or JSON): a download the browser makes with the session. */
export function teamAuditExportUrl(format: AuditExportFormat, filters: TeamAuditFilters, owner?: string): string {
  const q = new URLSearchParams(clean({ ...filters, owner }) as Record<string, string>).toString();
  return `/api/team/audit.${format}${q ? `?${q}` : ""}`;
}

export const teamApi = {
  team: (owner?: string) => call(snip.GET("/api/team", { params: { query: { owner } } })),
  invite: (email: string, role: AssignableRole, owner?: string) =>
    call(snip.POST("/api/team/invitations", { params: { query: { owner } }, body: { email, role } })).then((r) => r.invitation),
  resendInvitation: (id: string, owner?: string) => call(snip.POST("/api/team/invitations/{id}/resend", byId(id, owner))).then((r) => r.invitation),
  cancelInvitation: (id: string, owner?: string) => call(snip.DELETE("/api/team/invitations/{id}", byId(id, owner))),
  removeMember: (user_id: string, owner?: string) => call(snip.DELETE("/api/team/members/{user_id}", byMember(user_id, owner))),
  setRole: (user_id: string, role: AssignableRole, owner?: string) =>
    call(snip.PATCH("/api/team/members/{user_id}", { ...byMember(user_id, owner), body: { role } })).then((r) => r.role),
  leaveTeam: (owner_id: string) => call(snip.DELETE("/api/memberships/{owner_id}", { params: { path: { owner_id } } })),
  previewInvitation: (token: string) => call(snip.POST("/api/invitations/preview", { body: { token } }), true).then((r) => r.invitation),
  policy: () => call(snip.GET("/api/team/policy")).then((r) => r.require_2fa),
  /** Needs a recent proof of the owner: api.ts asks for it ("Confirm it's you") and sends the call again. */
  setPolicy: (require_2fa: boolean) => call(snip.PUT("/api/team/policy", { body: { require_2fa } })).then((r) => r.require_2fa),
  /** The team's audit log (Enterprise; the owner, or an admin with `owner`), a page at a time. */
  audit: (query: TeamAuditFilters & { owner?: string; cursor?: string; limit?: number }) =>
    call(snip.GET("/api/team/audit", { params: { query: clean(query) } })),
  acceptInvitation: (token: string) => call(snip.POST("/api/invitations/accept", { body: { token } }), true).then((r) => r.membership),
};
