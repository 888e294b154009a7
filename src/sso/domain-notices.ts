// The emails an SSO domain's owner gets (docs/sso.md): their pending claim dropped because another organisation
// proved the domain, a verified domain's TXT record gone (72 hours to restore it), and the verification lost.
import { iso } from "../shared/clock.js";
import type { SsoDeps } from "./deps.js";

/** How long a verified domain's TXT record may be gone before the domain becomes pending. */
export const RECORD_GRACE_MS = 72 * 3_600_000;

type NoticeDeps = Pick<SsoDeps, "mailer" | "log" | "origin">;

/** Sends through the outbox; a failure to queue is logged, never thrown (the state change it reports is done). */
async function send(deps: NoticeDeps, to: string, subject: string, text: string, domain: string): Promise<void> {
  try {
    await deps.mailer.send({ to, subject, text: `${text}\nYour single sign-on settings: ${deps.origin}/app/sso\n` });
  } catch (err) {
    deps.log.warn({ err, domain }, "could not email the owner of a single sign-on domain");
  }
}

export function claimDropped(deps: NoticeDeps, to: string, domain: string): Promise<void> {
  return send(
    deps,
    to,
    `${domain} was removed from your single sign-on connection`,
    `Another organisation proved that it controls ${domain} (its DNS holds their TXT record) and verified it for its ` +
      `single sign-on first, so your pending claim of ${domain} was removed.\n\n` +
      `If ${domain} is yours, check who can change its DNS records.\n`,
    domain,
  );
}

export function recordGone(deps: NoticeDeps, to: string, domain: string, record: { name: string; value: string }, since: number): Promise<void> {
  return send(
    deps,
    to,
    `${domain}: its single sign-on TXT record is gone`,
    `The regular check of ${domain} no longer finds the TXT record ${record.name} with the value ${record.value}.\n\n` +
      `Restore it before ${iso(since + RECORD_GRACE_MS)} (72 hours after it was first found missing), or ${domain} loses its ` +
      `verification and nobody signs in through it until it is verified again.\n`,
    domain,
  );
}

export function verificationLost(deps: NoticeDeps, to: string, domain: string, steps: string): Promise<void> {
  return send(
    deps,
    to,
    `${domain} is no longer verified for single sign-on`,
    `The TXT record of ${domain} has been gone for 72 hours, so the domain is no longer verified: nobody signs in ` +
      `through it, and another organisation may now claim it.\n\n${steps}\n`,
    domain,
  );
}
