// Teams as the service builds them. An invitation's email sent by a retry, or after its request stopped
// waiting ("mail.sent" from mail/, key "invitation:<id>"), shows as confirmed.
import type { EventSubscriber } from "../shared/events.js";
import type { TeamDeps } from "./deps.js";
import { TeamService } from "./teams.js";
import type { AuditWriter } from "../storage/audit-writer.js";

export interface TeamsDeps extends TeamDeps {
  /** Records role changes in the audit log (admin/audit-log.ts). */
  audit: AuditWriter;
  /** Subscribes to "mail.sent". */
  events: EventSubscriber;
}

const INVITATION = "invitation:";

export function createTeams(deps: TeamsDeps): TeamService {
  const { events, ...rest } = deps;
  const teams = new TeamService(rest);
  events.subscribe("mail.sent", async ({ key }) => {
    if (!key.startsWith(INVITATION)) return;
    await teams.invitationMailSent(key.slice(INVITATION.length)).catch((err) => deps.log.warn({ err, key }, "after-send update failed"));
  });
  return teams;
}
