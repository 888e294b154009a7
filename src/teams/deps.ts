// What the teams use cases need: database, clock, mailer, logger and the service's own origin.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { UserRow } from "../storage/schema.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import { DomainError } from "../shared/errors.js";
import { MAX_COLLABORATORS } from "../contract/tables.js";

export interface TeamDeps {
  db: Db;
  /** The owner's lock that keeps MAX_COLLABORATORS exact under concurrent invitations (and single sign-on joins). */
  caps: OwnerCaps;
  clock: Clock;
  mailer: MailSender;
  log: Logger;
  /** Bounds the invitation emails an owner sends (invite and cancel in a loop would otherwise mail anyone). */
  rate: RateEvents;
  /** BASE_URL's origin: invitation links point at its dashboard. */
  origin: string;
}

/**
 * Collaborators an owner may invite, on Business and Enterprise alike (SPEC.md): members who joined by invitation
 * and pending invitations together. Members made by single sign-on count apart, against ENTERPRISE_MEMBERS_MAX.
 */
export { MAX_COLLABORATORS };
/** How long an emailed invitation link is valid. */
export const INVITATION_TTL_MS = 7 * 86_400_000;
/** Earliest resend after the last send. */
export const RESEND_AFTER_MS = 60_000;
/** Invitation emails (first sends and resends) one owner may send per hour. */
export const INVITATION_EMAILS_PER_HOUR = 20;

export function requireActiveAccount(actor: UserRow): void {
  if (actor.status !== "active") throw new DomainError("account_inactive", "This account is suspended");
}
