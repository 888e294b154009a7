// Accounts: sign-up, sign-in with throttling, email verification, password reset and change,
// profile and picture, plan and status changes, cancellation and deletion.
import type { Db, Dialect } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { RateEvents } from "../storage/rate-events.js";
import { type ErasedAccount, eraseAccount, lockAccountLinks } from "./erase.js";
import { consumeToken, issueToken, resetLinkAccount, verifiedBy } from "./email-tokens.js";
import { LOGIN_WINDOW, PasswordlessThrottle, addressFailures, reserve } from "./sign-in-throttle.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, FieldChecks, invalid } from "../shared/errors.js";
import { MAX_NAME, MESSAGES, emailProblem } from "../contract/form-rules.js";
import { newId, sha256Hex } from "../shared/ids.js";
import type { MailSender } from "../mail/mail-queue.js";
import { checkAccountPassword, hashPassword, verifyPassword } from "./passwords.js";
import { type Plan, isPlan, PLANS } from "./plans.js";
import { checkPicture } from "./picture.js";
import type { User } from "../contract/accounts.js";
import type { EventPublisher } from "../shared/events.js";

export function publicUser(u: UserRow): User {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    email_verified: u.email_verified_at !== null,
    plan: u.plan,
    status: u.status,
    created_at: iso(u.created_at),
    picture_url: u.picture_updated_at === null ? null : `/api/profile/picture?v=${u.picture_updated_at}`,
    is_admin: Number(u.is_admin) === 1,
  };
}

export function normalizeEmail(raw: string, field = "email"): string {
  const email = raw.trim().toLowerCase();
  const problem = emailProblem(email);
  if (problem) throw invalid(field, problem);
  return email;
}

function checkName(name: string): string {
  const n = name.trim();
  if (n.length > MAX_NAME) throw invalid("name", MESSAGES.nameLong);
  if (/[\u0000-\u001f\u007f]/.test(n)) throw invalid("name", "must not contain control characters");
  return n;
}

const VERIFY_TTL = 48 * 3_600_000;
const RESET_TTL = 3_600_000;
const LOGIN_FAILURES_PER_EMAIL = 10;
const HOUR = 3_600_000;

export interface AccountDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  mailer: MailSender;
  rate: RateEvents;
  origin: string;
  /**
   * "account.changed" after a plan or status change: what depends on them and is cached follows at once, on
   * every instance (webhook deliveries). A subscriber's failure is logged, never fails the change.
   */
  events?: EventPublisher;
}

export class AccountService {
  private readonly db: Db;
  private readonly clock: Clock;
  /** Passkey sign-ins under the address's throttles, shared with the password form. */
  readonly passwordless: PasswordlessThrottle;
  // A real hash to verify against for unknown emails, so sign-in timing does not reveal accounts.
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly deps: AccountDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.passwordless = new PasswordlessThrottle(deps.rate, deps.clock);
  }

  async byId(id: string): Promise<UserRow | null> {
    return (await this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
  }

  async byEmail(email: string): Promise<UserRow | null> {
    return (await this.db.selectFrom("users").selectAll().where("email", "=", email.trim().toLowerCase()).executeTakeFirst()) ?? null;
  }

  async requireByEmail(email: string): Promise<UserRow> {
    const u = await this.byEmail(email);
    if (!u) throw new DomainError("not_found", `no user with email ${email}`);
    return u;
  }

  /** Creates an account; used by sign-up and by `snip user create`. */
  async create(input: { email: string; password: string; name?: string; plan?: string; verified?: boolean; admin?: boolean }): Promise<UserRow> {
    // Every wrong field at once, so a sign-up form can mark them all.
    const checks = new FieldChecks();
    const email = checks.run(() => normalizeEmail(input.email)) as string;
    checks.run(() => checkAccountPassword(input.password));
    const name = checks.run(() => checkName(input.name ?? "")) as string;
    checks.throwIfAny();
    const plan = input.plan ?? "free";
    if (!isPlan(plan)) throw invalid("plan", `must be one of ${PLANS.join(", ")}`);
    const now = this.clock.now();
    const row: UserRow = {
      id: newId(),
      email,
      password_hash: await hashPassword(input.password),
      name,
      email_verified_at: input.verified ? now : null,
      plan,
      status: "active",
      picture_updated_at: null,
      created_at: now,
      updated_at: now,
      is_admin: input.admin ? 1 : 0,
      last_sign_in_at: null,
      team_require_2fa: 0,
      track_conversions: 0,
      conversion_param: "snip_id",
      attribution_days: 90,
      open_outside: 0,
    };
    const inserted = await this.db
      .insertInto("users")
      .values(row)
      .onConflict((oc) => oc.column("email").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) throw new DomainError("conflict", "an account with this email already exists", [{ field: "email", message: "is already registered" }]);
    return row;
  }

  /** The new account, and whether its verification email went (false: kept in the outbox for a retry). */
  async signUp(input: { email: string; password: string; name?: string }, ip: string): Promise<{ user: UserRow; emailSent: boolean }> {
    await this.reserve(`signup:ip:${ip}`, HOUR, 20, "Too many sign-ups from this address");
    const user = await this.create(input);
    return { user, emailSent: await this.sendVerification(user) };
  }

  /** Checks credentials with per-email and per-IP throttles on failures (signInSession notes the sign-in). */
  async signIn(emailRaw: string, password: string, ip: string): Promise<UserRow> {
    const email = emailRaw.trim().toLowerCase();
    const user = await this.checkPassword(email, password, ip, async () => {
      const found = email.length <= 254 ? await this.byEmail(email) : null;
      this.dummyHash ??= hashPassword("not-a-real-password-0");
      const ok = found ? await verifyPassword(found.password_hash, password) : (await verifyPassword(await this.dummyHash, password), false);
      return ok ? found : null;
    });
    if (!user) throw new DomainError("invalid_credentials", "Wrong email or password");
    return user;
  }

  /** Notes a finished sign-in (a session was made): after the second step, never at the password alone. */
  async noteSignedIn(user: UserRow): Promise<UserRow> {
    const now = this.clock.now();
    await this.db.updateTable("users").set({ last_sign_in_at: now }).where("id", "=", user.id).execute();
    return { ...user, last_sign_in_at: now };
  }

  /**
   * Every check of an account password, signed in or not, under the sign-in throttle: failures count in
   * the account's bucket (shared by sign-in, password change and account deletion, so a stolen session
   * gets no more guesses than the sign-in form) and in the address's; success clears the account's.
   * Each check takes its slot in both windows before the (slow) hash, so concurrent guesses cannot all
   * find room: a wrong password keeps the slots, a right one gives them back.
   * `verify` answers the user when the password is right, null otherwise.
   */
  private async checkPassword(email: string, password: string, ip: string, verify: () => Promise<UserRow | null>): Promise<UserRow | null> {
    const emailBucket = `login:email:${sha256Hex(email)}`;
    const slot = await reserve(
      this.deps.rate,
      this.clock.now(),
      { bucket: emailBucket, windowMs: LOGIN_WINDOW, limit: LOGIN_FAILURES_PER_EMAIL, message: "Too many wrong passwords for this account" },
      addressFailures(ip, "Too many wrong passwords from this address"),
    );
    let user: UserRow | null;
    try {
      user = await verify();
    } catch (e) {
      await slot.release();
      throw e;
    }
    if (user) await slot.releaseClearing(emailBucket);
    return user;
  }

  /** The signed-in user's current password, checked under the sign-in throttle; the refusal names `field`. */
  async checkCurrentPassword(user: UserRow, password: string, ip: string, field: string): Promise<void> {
    const ok = await this.checkPassword(user.email, password, ip, async () => {
      const fresh = await this.byId(user.id);
      return fresh && (await verifyPassword(fresh.password_hash, password)) ? fresh : null;
    });
    if (!ok) throw invalid(field, "is not your current password");
  }

  /** Counts one attempt in the window, checked and counted in one step: rate_limited when it is full. */
  private async reserve(bucket: string, windowMs: number, limit: number, message: string): Promise<void> {
    await reserve(this.deps.rate, this.clock.now(), { bucket, windowMs, limit, message });
  }

  /** True when the mail transport accepted the email now; else it waits in the outbox for a retry (or was refused). */
  async sendVerification(user: UserRow): Promise<boolean> {
    const token = await issueToken(this.db, user, "verify", this.clock, VERIFY_TTL);
    const link = `${this.deps.origin}/app/verify-email?token=${encodeURIComponent(token)}`;
    const outcome = await this.deps.mailer.send(
      {
        to: user.email,
        subject: "Confirm your email for snip",
        text: `Hello,\n\nconfirm your email address for snip by opening this link (valid for 48 hours):\n\n${link}\n\nIf you did not sign up, ignore this message.\n`,
      },
      // The new link replaced the previous one: a queued older email is dropped.
      { key: `verify:${user.id}`, expiresAt: this.clock.now() + VERIFY_TTL },
    );
    return outcome === "sent";
  }

  /** Whether an email went now (false too when the address is already verified: nothing to send). */
  async resendVerification(user: UserRow): Promise<boolean> {
    if (user.email_verified_at !== null) return false;
    await this.reserve(`verify-resend:${user.id}`, HOUR, 5, "Too many verification emails; try again later");
    return this.sendVerification(user);
  }

  /** Verifies the address; a link opened again (a second click, a scanner) is `already` when its account is verified. */
  async verifyEmail(token: string): Promise<{ user: UserRow; already: boolean }> {
    let user: UserRow;
    try {
      user = await consumeToken(this.db, token, "verify", this.clock);
    } catch (err) {
      const verified = await verifiedBy(this.db, token);
      if (verified) return { user: verified, already: true };
      throw err;
    }
    const now = this.clock.now();
    await this.db.updateTable("users").set({ email_verified_at: now, updated_at: now }).where("id", "=", user.id).execute();
    return { user: { ...user, email_verified_at: now, updated_at: now }, already: false };
  }

  /** Sends a reset link when the account exists; says nothing either way. */
  async requestPasswordReset(emailRaw: string): Promise<void> {
    const email = normalizeEmail(emailRaw);
    const user = await this.byEmail(email);
    if (!user) return;
    const bucket = `reset:${user.id}`;
    const now = this.clock.now();
    // Past 3 an hour, silently: the answer is the same either way.
    if ("full" in (await this.deps.rate.attempt([{ bucket, windowMs: HOUR, limit: 3 }], now))) return;
    const token = await issueToken(this.db, user, "reset", this.clock, RESET_TTL);
    const link = `${this.deps.origin}/app/reset-password/confirm?token=${encodeURIComponent(token)}`;
    // Not awaited: the answer is the same whether or not the account exists, so it must not wait for the
    // mail server either (a slow or unreachable one would tell accounts apart by the time taken). The
    // message is in the outbox before the attempt starts, so it is kept and retried if this one fails.
    void this.deps.mailer
      .send(
        {
          to: user.email,
          subject: "Reset your snip password",
          text: `Hello,\n\nsomeone asked to reset the password of your snip account. Open this link within one hour to choose a new one:\n\n${link}\n\nIf it was not you, ignore this message; your password stays as it is.\n`,
        },
        { key: `reset:${user.id}`, expiresAt: now + RESET_TTL },
      )
      .catch(() => undefined);
  }

  /** The account a live reset link is for, without using the link up (the door asks its policies first); null otherwise. */
  async resetLinkAccount(token: string): Promise<UserRow | null> {
    return resetLinkAccount(this.db, token, this.clock);
  }

  async confirmPasswordReset(token: string, password: string): Promise<UserRow> {
    checkAccountPassword(password);
    const user = await consumeToken(this.db, token, "reset", this.clock);
    const now = this.clock.now();
    // The link proves the mailbox, so the address counts as verified too.
    await this.db
      .updateTable("users")
      .set({ password_hash: await hashPassword(password), email_verified_at: user.email_verified_at ?? now, updated_at: now })
      .where("id", "=", user.id)
      .execute();
    await this.db.deleteFrom("sessions").where("user_id", "=", user.id).execute();
    return user;
  }

  async changePassword(user: UserRow, current: string, next: string, ip: string): Promise<void> {
    checkAccountPassword(next, "new_password");
    await this.checkCurrentPassword(user, current, ip, "current_password");
    await this.db
      .updateTable("users")
      .set({ password_hash: await hashPassword(next), updated_at: this.clock.now() })
      .where("id", "=", user.id)
      .execute();
  }

  async updateProfile(user: UserRow, input: { name: string }): Promise<UserRow> {
    const name = checkName(input.name);
    const now = this.clock.now();
    await this.db.updateTable("users").set({ name, updated_at: now }).where("id", "=", user.id).execute();
    return { ...user, name, updated_at: now };
  }

  async setPicture(user: UserRow, data: Buffer, declaredType: string | undefined): Promise<UserRow> {
    const mime = checkPicture(data, declaredType);
    const now = this.clock.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("user_pictures")
        .values({ user_id: user.id, mime, data, updated_at: now })
        .onConflict((oc) => oc.column("user_id").doUpdateSet({ mime, data, updated_at: now }))
        .execute();
      await trx.updateTable("users").set({ picture_updated_at: now, updated_at: now }).where("id", "=", user.id).execute();
    });
    return { ...user, picture_updated_at: now, updated_at: now };
  }

  async picture(userId: string): Promise<{ mime: string; data: Buffer } | null> {
    return (await this.db.selectFrom("user_pictures").select(["mime", "data"]).where("user_id", "=", userId).executeTakeFirst()) ?? null;
  }

  async setPlan(email: string, plan: string): Promise<UserRow> {
    if (!isPlan(plan)) throw invalid("plan", `must be one of ${PLANS.join(", ")}`);
    const user = await this.requireByEmail(email);
    await this.db.updateTable("users").set({ plan, updated_at: this.clock.now() }).where("id", "=", user.id).execute();
    await this.deps.events?.publish("account.changed", { userId: user.id });
    return { ...user, plan };
  }

  async setStatus(email: string, status: "active" | "suspended"): Promise<UserRow> {
    const user = await this.requireByEmail(email);
    await this.db.updateTable("users").set({ status, updated_at: this.clock.now() }).where("id", "=", user.id).execute();
    await this.deps.events?.publish("account.changed", { userId: user.id });
    return { ...user, status };
  }

  /** Ends the paid subscription: the account returns to the free plan. */
  async cancelSubscription(user: UserRow): Promise<UserRow> {
    if ((user.plan as Plan) === "free") throw new DomainError("conflict", "There is no paid subscription to cancel");
    const now = this.clock.now();
    await this.db.updateTable("users").set({ plan: "free", updated_at: now }).where("id", "=", user.id).execute();
    await this.deps.events?.publish("account.changed", { userId: user.id });
    return { ...user, plan: "free", updated_at: now };
  }

  /** Deletes the account and, by cascade, everything it owns; returns what caches must forget. */
  async deleteAccount(user: UserRow, password: string, ip: string): Promise<ErasedAccount> {
    await this.checkCurrentPassword(user, password, ip, "password");
    return this.db.transaction().execute(async (trx) => {
      await lockAccountLinks(trx, this.deps.dialect, user.id);
      return eraseAccount(trx, user.id);
    });
  }
}
