// The API's invitation object (docs/api.md, Team): never the token, which exists only in the email.
import { iso } from "../shared/clock.js";
import type { TeamInvitationRow } from "../storage/schema.js";
import { RESEND_AFTER_MS } from "./deps.js";
import type { Invitation } from "../contract/teams.js";
import { assignableRoleOf } from "../contract/roles.js";

export function publicInvitation(row: TeamInvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    state: row.state,
    sent_at: iso(Number(row.sent_at)),
    send_confirmed: Number(row.send_confirmed) === 1,
    expires_at: iso(Number(row.expires_at)),
    can_resend_at: iso(Number(row.sent_at) + RESEND_AFTER_MS),
    role: assignableRoleOf(row.role),
  };
}
