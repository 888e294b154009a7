// Security alerts by email (docs/security.md): every change of how one signs in that a thief would make
// (a passkey added, 2FA off, new recovery codes, an API key, a new password, SSO now required) tells the
// account's address what changed, when and from which browser, with a link to the Security page.
import type { MailSender } from "../mail/mail-queue.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { type SignInDevice, familyOf } from "../security/sign-in-notice.js";
import type { ActivityKind } from "./activity.js";

/** The changes that send an alert, and how the email names them. */
export const ALERTS: Partial<Record<ActivityKind, string>> = {
  passkey_added: "A passkey was added to your account",
  "2fa_disabled": "Two-factor sign-in was turned off",
  recovery_codes_regenerated: "New recovery codes were made (the old ones no longer work)",
  api_key_created: "A new API key was created",
  password_changed: "Your password was changed",
  password_reset: "Your password was reset",
  sso_required: "Your organisation now requires single sign-on",
};

export class SecurityAlerts {
  constructor(private readonly deps: { mailer: MailSender; clock: Clock; origin: string }) {}

  /** Queues the alert for `kind` (nothing for kinds without one); the change never waits for the mail server. */
  send(to: string, kind: ActivityKind, device: SignInDevice | null, detail?: string | null): void {
    const what = ALERTS[kind];
    if (!what) return;
    const from = device ? `${familyOf(device)}${device.country ? ` (${device.country})` : ""}` : "snip itself";
    const about = detail ? ` (${detail.replace(/[\r\n]+/g, " ").slice(0, 100)})` : "";
    const text =
      `Hello,\n\n${what}${about}.\n\nWhen: ${iso(this.deps.clock.now())}\nFrom: ${from}\n\n` +
      `If this was you, there is nothing to do. If it was not, reset your password now and review your passkeys, keys and sessions here:\n\n` +
      `${this.deps.origin}/app/security\n`;
    // The outbox keeps and retries the email; a mail server that is down must not fail the change.
    void this.deps.mailer.send({ to, subject: `Security alert: ${what}`, text }).catch(() => undefined);
  }
}
