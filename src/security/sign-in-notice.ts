// The email about a sign-in from a browser not seen before on the account (browser and OS family, no
// versions): the first browser an account knows sends nothing (its sign-up, or its first sign-in since
// this was added).
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { MailSender } from "../mail/mail-queue.js";
import type { UserRow } from "../storage/schema.js";

export interface SignInDevice {
  browser: string | null;
  os: string | null;
  country: string | null;
}

export function familyOf(d: SignInDevice): string {
  return `${d.browser ?? "unknown browser"} on ${d.os ?? "unknown system"}`;
}

export class SignInNotices {
  constructor(private readonly deps: { db: Db; clock: Clock; mailer: MailSender; origin: string }) {}

  /** Records the browser for the account; true when it was new and the email was queued. */
  async signedIn(user: UserRow, device: SignInDevice): Promise<boolean> {
    const family = familyOf(device).slice(0, 200);
    const { db } = this.deps;
    const known = await db.selectFrom("known_browsers").select("family").where("user_id", "=", user.id).execute();
    if (known.some((k) => k.family === family)) return false;
    const now = this.deps.clock.now();
    const added = await db
      .insertInto("known_browsers")
      .values({ user_id: user.id, family, first_seen_at: now })
      .onConflict((oc) => oc.columns(["user_id", "family"]).doNothing())
      .returning("family")
      .executeTakeFirst();
    if (known.length === 0 || !added) return false;
    const where = device.country ? ` (${device.country})` : "";
    const link = `${this.deps.origin}/app/security`;
    // Not awaited: the sign-in does not wait for the mail server; the outbox keeps and retries the email.
    void this.deps.mailer
      .send({
        to: user.email,
        subject: "New sign-in to your snip account",
        text:
          `Hello,\n\nyour snip account was just signed in to from ${family}${where}, a browser it had not been used from before.\n\n` +
          `If this was you, there is nothing to do. If it was not, change your password and sign that session out here:\n\n${link}\n`,
      })
      .catch(() => undefined);
    return true;
  }
}
