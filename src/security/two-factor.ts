// Two-factor sign-in: setting up, enabling and disabling a TOTP factor, recovery codes, and the pending
// sign-in a right password starts and a code finishes (docs/security.md). Secrets are sealed, codes and
// tokens kept as SHA-256; every change of a factor is in the audit log.
import type { Kysely } from "kysely";
import type { AuditWriter } from "../storage/audit-writer.js";
import type { Db } from "../storage/db.js";
import type { Database, UserRow } from "../storage/schema.js";
import type { RateEvents, Slot } from "../storage/rate-events.js";
import { counted, reserve } from "../accounts/sign-in-throttle.js";
import type { Clock } from "../shared/clock.js";
import type { SealedBox } from "../shared/secret-box.js";
import { DomainError } from "../shared/errors.js";
import { randomToken, sha256Hex } from "../shared/ids.js";
import { matchTotp, newTotpSecret, secretBytes, totpUrl } from "./totp.js";
import { newRecoveryCodes, recoveryCodeHash, looksLikeRecoveryCode } from "./recovery-codes.js";

/** How long a set-up secret waits for its first code, and a right password for its second step. */
const SETUP_TTL = 30 * 60_000;
export const PENDING_TTL = 5 * 60_000;
/** Wrong codes per account in the window before 429. */
const CODE_WINDOW = 15 * 60_000;
const CODE_FAILURES = 5;

export interface TwoFactorDeps {
  db: Db;
  clock: Clock;
  rate: RateEvents;
  box: SealedBox;
  issuer: string;
  audit: AuditWriter;
  /** The signed-in user's password, checked under the sign-in throttle (AccountService.checkCurrentPassword). */
  checkPassword(user: UserRow, password: string, ip: string, field: string): Promise<void>;
}

export type SecondStep = { code: string } | { recovery_code: string };

export class TwoFactorService {
  constructor(private readonly deps: TwoFactorDeps) {}

  private row(userId: string) {
    return this.deps.db.selectFrom("totp_factors").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }

  /** The second steps a sign-in of this account may finish with ([] when it has none). */
  async methodsFor(userId: string): Promise<string[]> {
    const row = await this.deps.db.selectFrom("totp_factors").select("enabled_at").where("user_id", "=", userId).executeTakeFirst();
    if (row?.enabled_at == null) return [];
    // A passkey of the account finishes the second step too (POST /api/auth/2fa/passkey/...).
    const passkey = await this.deps.db.selectFrom("passkeys").select("id").where("user_id", "=", userId).executeTakeFirst();
    return passkey ? ["totp", "recovery_code", "passkey"] : ["totp", "recovery_code"];
  }

  async status(user: UserRow): Promise<{ totp_enabled: boolean; enabled_at: number | null; recovery_codes_left: number }> {
    const row = await this.row(user.id);
    const left = await this.deps.db
      .selectFrom("recovery_codes")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", user.id)
      .where("used_at", "is", null)
      .executeTakeFirstOrThrow();
    const enabledAt = row?.enabled_at ?? null;
    return {
      totp_enabled: enabledAt !== null,
      enabled_at: enabledAt === null ? null : Number(enabledAt),
      recovery_codes_left: enabledAt === null ? 0 : Number(left.n),
    };
  }

  /** A new secret waiting for its first code (replacing one set up before); nothing is enabled yet. */
  async setup(user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
    const row = await this.row(user.id);
    if (row?.enabled_at != null) throw new DomainError("conflict", "Two-factor sign-in is already on; turn it off first to set up another app");
    const secret = newTotpSecret();
    const now = this.deps.clock.now();
    const sealed = this.deps.box.seal(secret, user.id);
    await this.deps.db
      .insertInto("totp_factors")
      .values({ user_id: user.id, secret_enc: null, pending_enc: sealed, pending_at: now, enabled_at: null, last_step: null, updated_at: now })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ pending_enc: sealed, pending_at: now, updated_at: now }))
      .execute();
    return { secret, otpauth_url: totpUrl(secret, user.email, this.deps.issuer) };
  }

  /** Turns the set-up secret on with its first code; returns the recovery codes (shown once). */
  async enable(user: UserRow, code: string): Promise<string[]> {
    const row = await this.row(user.id);
    if (row?.enabled_at != null) throw new DomainError("conflict", "Two-factor sign-in is already on");
    const now = this.deps.clock.now();
    if (!row?.pending_enc || row.pending_at === null || Number(row.pending_at) + SETUP_TTL <= now) {
      throw new DomainError("conflict", "Set up two-factor sign-in first (the set-up lasts 30 minutes)");
    }
    const slot = await this.throttle(user.id);
    const secret = this.deps.box.open(row.pending_enc, user.id);
    const step = secret === null ? null : matchTotp({ secret: secretBytes(secret), token: code, at: now });
    if (step === null) throw wrongCode("code");
    const codes = newRecoveryCodes();
    await this.deps.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable("totp_factors")
          .set({ secret_enc: row.pending_enc, pending_enc: null, pending_at: null, enabled_at: now, last_step: step, updated_at: now })
          .where("user_id", "=", user.id)
          .execute();
        await this.replaceCodes(trx, user.id, codes, now);
        await this.audit(trx, user, now, "account.2fa_enabled", "turned two-factor sign-in (TOTP) on");
      })
      .catch(async (e: unknown) => {
        await slot.release();
        throw e;
      });
    await this.deps.rate.clear(bucket(user.id));
    return codes;
  }

  /** Turns TOTP off: the password and a code (or a recovery code) of the account. */
  async disable(user: UserRow, password: string, code: string, ip: string): Promise<void> {
    await this.deps.checkPassword(user, password, ip, "password");
    await this.checkCode(user, code, "code");
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("totp_factors").where("user_id", "=", user.id).execute();
      await trx.deleteFrom("recovery_codes").where("user_id", "=", user.id).execute();
      await this.audit(trx, user, now, "account.2fa_disabled", "turned two-factor sign-in (TOTP) off");
    });
  }

  /** New recovery codes (the old ones stop working): the password and a code of the account. */
  async regenerateRecoveryCodes(user: UserRow, password: string, code: string, ip: string): Promise<string[]> {
    await this.deps.checkPassword(user, password, ip, "password");
    await this.checkCode(user, code, "code");
    const now = this.deps.clock.now();
    const codes = newRecoveryCodes();
    await this.deps.db.transaction().execute(async (trx) => {
      await this.replaceCodes(trx, user.id, codes, now);
      await this.audit(trx, user, now, "account.recovery_codes_regenerated", "made new recovery codes");
    });
    return codes;
  }

  /** A pending sign-in for a user whose password was right: the cookie's token (its SHA-256 is kept). */
  async startPending(userId: string): Promise<string> {
    const token = randomToken(32);
    const now = this.deps.clock.now();
    await this.deps.db.deleteFrom("pending_sign_ins").where("user_id", "=", userId).where("expires_at", "<=", now).execute();
    await this.deps.db
      .insertInto("pending_sign_ins")
      .values({ token_hash: sha256Hex(token), user_id: userId, created_at: now, expires_at: now + PENDING_TTL })
      .execute();
    return token;
  }

  /** The pending sign-in of a cookie, not used up; `unauthenticated` when there is none (or it is over). */
  async pending(token: string | undefined, load: (id: string) => Promise<UserRow | null>): Promise<{ tokenHash: string; user: UserRow }> {
    const now = this.deps.clock.now();
    const pending = token
      ? await this.deps.db
          .selectFrom("pending_sign_ins")
          .selectAll()
          .where("token_hash", "=", sha256Hex(token))
          .where("expires_at", ">", now)
          .executeTakeFirst()
      : undefined;
    const user = pending ? await load(pending.user_id) : null;
    if (!pending || !user) throw new DomainError("unauthenticated", "No sign-in is waiting for a code (it lasts 5 minutes): sign in again");
    return { tokenHash: pending.token_hash, user };
  }

  /** Uses a pending sign-in up once its second step is proved: a second request with the same cookie finds nothing. */
  async takePending(tokenHash: string): Promise<void> {
    const taken = await this.deps.db.deleteFrom("pending_sign_ins").where("token_hash", "=", tokenHash).executeTakeFirst();
    if (Number(taken.numDeletedRows) !== 1) throw new DomainError("unauthenticated", "This sign-in was already finished: sign in again");
  }

  /** Finishes a pending sign-in with a code or a recovery code; the user to start a session for. */
  async finishPending(token: string | undefined, step: SecondStep, load: (id: string) => Promise<UserRow | null>): Promise<UserRow> {
    const { tokenHash, user } = await this.pending(token, load);
    if ("code" in step) await this.checkCode(user, step.code, "code", false);
    else await this.checkCode(user, step.recovery_code, "recovery_code", true);
    await this.takePending(tokenHash);
    return user;
  }

  async prunePending(): Promise<void> {
    await this.deps.db.deleteFrom("pending_sign_ins").where("expires_at", "<=", this.deps.clock.now()).execute();
  }

  /** Ends every pending sign-in of the account (a new password: a right old one must not finish with its code). */
  async dropPendingOf(userId: string): Promise<void> {
    await this.deps.db.deleteFrom("pending_sign_ins").where("user_id", "=", userId).execute();
  }

  async dropPending(token: string): Promise<void> {
    await this.deps.db.deleteFrom("pending_sign_ins").where("token_hash", "=", sha256Hex(token)).execute();
  }

  /**
   * A TOTP code (each step accepted once) or, unless `recovery` is false, a recovery code (each used
   * once), under the account's throttle of wrong codes.
   */
  private async checkCode(user: UserRow, code: string, field: string, recovery: boolean | "either" = "either"): Promise<void> {
    const row = await this.row(user.id);
    if (row?.enabled_at == null || !row.secret_enc) throw new DomainError("conflict", "Two-factor sign-in is not on for this account");
    const slot = await this.throttle(user.id);
    const now = this.deps.clock.now();
    const sealed = row.secret_enc;
    const useRecovery = recovery === true || (recovery === "either" && looksLikeRecoveryCode(code));
    const ok = await counted(
      slot,
      () => (useRecovery ? this.useRecoveryCode(user, code, now) : this.useTotp(user.id, sealed, code, now)),
      (matched) => !matched,
    );
    if (!ok) throw wrongCode(field);
    await this.deps.rate.clear(bucket(user.id));
  }

  private async useTotp(userId: string, sealed: string, code: string, now: number): Promise<boolean> {
    const secret = this.deps.box.open(sealed, userId);
    const step = secret === null ? null : matchTotp({ secret: secretBytes(secret), token: code, at: now });
    if (step === null) return false;
    // Atomic: of two requests with the same code (or an older step's), one wins.
    const r = await this.deps.db
      .updateTable("totp_factors")
      .set({ last_step: step })
      .where("user_id", "=", userId)
      .where((eb) => eb.or([eb("last_step", "is", null), eb("last_step", "<", step)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async useRecoveryCode(user: UserRow, code: string, now: number): Promise<boolean> {
    const hash = recoveryCodeHash(user.id, code);
    if (hash === null) return false;
    return this.deps.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable("recovery_codes")
        .set({ used_at: now })
        .where("code_hash", "=", hash)
        .where("user_id", "=", user.id)
        .where("used_at", "is", null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await this.audit(trx, user, now, "account.recovery_code_used", "used a recovery code");
      return true;
    });
  }

  private async replaceCodes(trx: Kysely<Database>, userId: string, codes: string[], now: number): Promise<void> {
    await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
    await trx
      .insertInto("recovery_codes")
      .values(codes.map((c) => ({ code_hash: recoveryCodeHash(userId, c) as string, user_id: userId, created_at: now, used_at: null })))
      .execute();
  }

  /**
   * A slot of the account's wrong codes, taken before the code is checked (one step with the count, so a
   * burst over several pending sign-ins gets exactly CODE_FAILURES checks): kept by a wrong code, cleared
   * with the rest of the window by a right one.
   */
  private throttle(userId: string): Promise<Slot> {
    return reserve(this.deps.rate, this.deps.clock.now(), {
      bucket: bucket(userId),
      windowMs: CODE_WINDOW,
      limit: CODE_FAILURES,
      message: "Too many wrong codes for this account; try again later",
    });
  }

  private audit(trx: Kysely<Database>, user: UserRow, at: number, action: string, summary: string): Promise<void> {
    return this.deps.audit.record(trx, { id: user.id, email: user.email }, at, { action, targetType: "account", targetId: user.id, summary });
  }
}

/** The field's words stay "is wrong or was already used" (shown beside the field); the message is a sentence of its own. */
function wrongCode(field: string): DomainError {
  const what = field === "recovery_code" ? "This recovery code" : "This code";
  return new DomainError("invalid_request", `${what} is wrong or was already used`, [{ field, message: "is wrong or was already used" }]);
}

function bucket(userId: string): string {
  return `2fa:${userId}`;
}
