// Passkeys (WebAuthn, docs/passkeys.md) through @simplewebauthn/server: several per account, registered while
// signed in, used to sign in alone (discoverable credentials) or, through verifyAssertion, as a second factor.
import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server";
import type { AuditWriter } from "../storage/audit-writer.js";
import type { Db } from "../storage/db.js";
import type { PasskeyRow, UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { iso } from "../shared/clock.js";
import { DomainError, invalid } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { isUniqueViolation } from "../storage/unique-violation.js";
import type { AuthenticationResponse, CreationOptions, Passkey, RegisterVerifyBody, RequestOptions } from "../contract/passkeys.js";
import { type ChallengePurpose, PasskeyChallenges } from "./passkey-challenges.js";

/** At most this many passkeys on one account. */
export const MAX_PASSKEYS = 20;
/** What the options ask the browser to wait for the person (the challenge itself lives CHALLENGE_TTL_MS). */
const TIMEOUT_MS = 120_000;

export interface PasskeyDeps {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  /** BASE_URL's hostname (the RP ID) and origin (what clientDataJSON must name). */
  rpId: string;
  origin: string;
  rpName: string;
  /** The account's password, checked under the sign-in throttle (AccountService.checkCurrentPassword). */
  checkPassword: (user: UserRow, password: string, ip: string, field: string) => Promise<void>;
}

export function publicPasskey(r: PasskeyRow): Passkey {
  return {
    id: r.id,
    name: r.name,
    created_at: iso(Number(r.created_at)),
    last_used_at: iso(r.last_used_at === null ? null : Number(r.last_used_at)),
    transports: parseTransports(r.transports),
    synced: Number(r.backed_up) === 1,
  };
}

function parseTransports(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

/** The challenge an answer's clientDataJSON signs, or null when it is not readable JSON naming one. */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as unknown;
    const c = data && typeof data === "object" ? (data as { challenge?: unknown }).challenge : undefined;
    return typeof c === "string" ? c : null;
  } catch {
    return null;
  }
}

function descriptor(d: { id: string; transports?: string[] }) {
  return { id: d.id, type: "public-key" as const, ...(d.transports?.length ? { transports: d.transports } : {}) };
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid("name", "must not be empty");
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid("name", "must not contain control characters");
  return name;
}

const badChallenge = () =>
  new DomainError("invalid_challenge", "No passkey challenge is pending for this session, it expired or it was used: ask for new options");
const wrongPasskey = () => new DomainError("invalid_credentials", "This passkey was not accepted");

export class PasskeyService {
  readonly challenges: PasskeyChallenges;

  constructor(private readonly deps: PasskeyDeps) {
    this.challenges = new PasskeyChallenges(deps.db, deps.clock);
  }

  async list(userId: string): Promise<Passkey[]> {
    const rows = await this.deps.db.selectFrom("passkeys").selectAll().where("user_id", "=", userId).orderBy("created_at").orderBy("id").execute();
    return rows.map(publicPasskey);
  }

  /** Options for navigator.credentials.create(), the challenge kept for `binding` (the session id). */
  async registrationOptions(user: UserRow, binding: string): Promise<CreationOptions> {
    const existing = await this.deps.db.selectFrom("passkeys").select(["credential_id", "transports"]).where("user_id", "=", user.id).execute();
    if (existing.length >= MAX_PASSKEYS) throw new DomainError("limit_reached", `An account can have ${MAX_PASSKEYS} passkeys`);
    const options = await generateRegistrationOptions({
      rpName: this.deps.rpName,
      rpID: this.deps.rpId,
      userName: user.email,
      userDisplayName: user.name || user.email,
      // The user handle a discoverable credential gives back at sign-in: the account's id, nothing personal.
      userID: new TextEncoder().encode(user.id),
      timeout: TIMEOUT_MS,
      attestationType: "none",
      excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: parseTransports(c.transports) })),
      authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
      extensions: { credProps: true },
    });
    await this.challenges.issue("register", binding, options.challenge, user.id);
    const selection = options.authenticatorSelection;
    return {
      challenge: options.challenge,
      rp: { name: options.rp.name, id: this.deps.rpId },
      user: options.user,
      pubKeyCredParams: options.pubKeyCredParams.map((p) => ({ type: "public-key" as const, alg: p.alg })),
      timeout: TIMEOUT_MS,
      attestation: options.attestation ?? "none",
      excludeCredentials: (options.excludeCredentials ?? []).map(descriptor),
      authenticatorSelection: {
        residentKey: selection?.residentKey ?? "required",
        requireResidentKey: selection?.requireResidentKey ?? true,
        userVerification: selection?.userVerification ?? "preferred",
      },
      extensions: { credProps: true },
      hints: options.hints ?? [],
    };
  }

  /** Checks the authenticator's answer to the pending registration and keeps the new passkey. */
  async register(user: UserRow, binding: string, body: RegisterVerifyBody): Promise<Passkey> {
    const name = body.name === undefined ? null : checkName(body.name);
    const taken = await this.challenges.take("register", binding, signedChallenge(body.response.response.clientDataJSON));
    if (!taken || taken.userId !== user.id) throw badChallenge();
    let info;
    try {
      const result = await verifyRegistrationResponse({
        response: body.response,
        expectedChallenge: taken.challenge,
        expectedOrigin: this.deps.origin,
        expectedRPID: this.deps.rpId,
        requireUserVerification: false,
      });
      if (!result.verified) throw new Error("not verified");
      info = result.registrationInfo;
    } catch (err) {
      throw new DomainError("passkey_rejected", `The authenticator's answer was not accepted: ${err instanceof Error ? err.message : "invalid"}`);
    }
    const now = this.deps.clock.now();
    const count = await this.deps.db
      .selectFrom("passkeys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_PASSKEYS) throw new DomainError("limit_reached", `An account can have ${MAX_PASSKEYS} passkeys`);
    const row: PasskeyRow = {
      id: newId(),
      user_id: user.id,
      credential_id: info.credential.id,
      public_key: Buffer.from(info.credential.publicKey).toString("base64url"),
      counter: info.credential.counter,
      transports: JSON.stringify(body.response.response.transports ?? []),
      name: name ?? `Passkey ${Number(count.n) + 1}`,
      device_type: info.credentialDeviceType,
      backed_up: info.credentialBackedUp ? 1 : 0,
      created_at: now,
      last_used_at: null,
    };
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await trx.insertInto("passkeys").values(row).execute();
        await this.deps.audit.record(trx, { id: user.id, email: user.email }, now, {
          action: "passkey.added",
          targetType: "account",
          targetId: user.id,
          summary: `Passkey "${row.name}" added`,
          after: { passkey_id: row.id, name: row.name },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new DomainError("conflict", "This passkey is registered already");
      throw err;
    }
    return publicPasskey(row);
  }

  /**
   * Options for navigator.credentials.get(), the challenge kept under `purpose` for `binding`. Without a user
   * (passwordless sign-in) the list of credentials is empty: the browser offers the discoverable ones it has.
   * With one (a second-factor step), that account's passkeys are listed.
   */
  async authenticationOptions(purpose: Exclude<ChallengePurpose, "register">, binding: string, userId: string | null): Promise<RequestOptions> {
    const allow = userId ? await this.deps.db.selectFrom("passkeys").select(["credential_id", "transports"]).where("user_id", "=", userId).execute() : [];
    const options = await generateAuthenticationOptions({
      rpID: this.deps.rpId,
      timeout: TIMEOUT_MS,
      userVerification: "preferred",
      allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: parseTransports(c.transports) })),
    });
    await this.challenges.issue(purpose, binding, options.challenge, userId);
    return {
      challenge: options.challenge,
      rpId: this.deps.rpId,
      timeout: TIMEOUT_MS,
      userVerification: "preferred",
      allowCredentials: (options.allowCredentials ?? []).map(descriptor),
    };
  }

  /**
   * Takes the challenge of `purpose` for `binding` (400 invalid_challenge when there is none) and verifies the
   * assertion against it; a challenge issued for one account accepts only that account's passkeys.
   */
  async finishAuthentication(purpose: Exclude<ChallengePurpose, "register">, binding: string, response: AuthenticationResponse): Promise<UserRow> {
    const taken = await this.challenges.take(purpose, binding, signedChallenge(response.response.clientDataJSON));
    if (!taken) throw badChallenge();
    return this.verifyAssertion(response, taken.challenge, taken.userId ?? undefined);
  }

  /** The passwordless sign-in: the session's "login" challenge, any account's passkey. */
  async signIn(binding: string, response: AuthenticationResponse): Promise<UserRow> {
    return this.finishAuthentication("login", binding, response);
  }

  /**
   * The one check of a passkey assertion, for the passwordless sign-in and for a second-factor step alike:
   * the signature over `expectedChallenge` by a registered credential (of `onlyUserId` when given), the RP ID
   * and origin, and a signature counter that went up (a cloned authenticator shows an old one). Updates the
   * counter and last use; answers the credential's account. 400 invalid_challenge when the answer signs
   * another challenge, 401 invalid_credentials for any other refusal.
   */
  async verifyAssertion(response: AuthenticationResponse, expectedChallenge: string, onlyUserId?: string): Promise<UserRow> {
    if (signedChallenge(response.response.clientDataJSON) !== expectedChallenge) throw badChallenge();
    if (response.id !== response.rawId) throw wrongPasskey();
    const row = await this.deps.db.selectFrom("passkeys").selectAll().where("credential_id", "=", response.id).executeTakeFirst();
    if (!row || (onlyUserId !== undefined && row.user_id !== onlyUserId)) throw wrongPasskey();
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== "" && Buffer.from(handle, "base64url").toString("utf8") !== row.user_id) throw wrongPasskey();
    const counter = Number(row.counter);
    let newCounter: number;
    try {
      const result = await verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.deps.origin,
        expectedRPID: this.deps.rpId,
        credential: { id: row.credential_id, publicKey: Buffer.from(row.public_key, "base64url"), counter, transports: parseTransports(row.transports) },
        requireUserVerification: false,
      });
      if (!result.verified) throw new Error("not verified");
      newCounter = result.authenticationInfo.newCounter;
    } catch {
      throw wrongPasskey();
    }
    // Only from the counter read above: of two answers with one counter value, one is refused.
    const updated = await this.deps.db
      .updateTable("passkeys")
      .set({ counter: newCounter, last_used_at: this.deps.clock.now() })
      .where("id", "=", row.id)
      .where("counter", "=", counter)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1 && newCounter !== 0) throw wrongPasskey();
    const user = await this.deps.db.selectFrom("users").selectAll().where("id", "=", row.user_id).executeTakeFirst();
    if (!user) throw wrongPasskey();
    return user;
  }

  /** Renames one of the user's passkeys (another account's is 404, whatever the name). */
  async rename(user: UserRow, id: string, rawName: string): Promise<Passkey> {
    const row = await this.deps.db.selectFrom("passkeys").selectAll().where("id", "=", id).where("user_id", "=", user.id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such passkey");
    const name = checkName(rawName);
    await this.deps.db.updateTable("passkeys").set({ name }).where("id", "=", id).where("user_id", "=", user.id).execute();
    return publicPasskey({ ...row, name });
  }

  /**
   * Removes one of the user's passkeys with the account password. Another account's passkey is 404 before the
   * password is looked at (as an unknown id is), so a refusal tells nothing and spends no password guess.
   */
  async remove(user: UserRow, id: string, password: string, ip: string): Promise<void> {
    const mine = await this.deps.db.selectFrom("passkeys").select("id").where("id", "=", id).where("user_id", "=", user.id).executeTakeFirst();
    if (!mine) throw new DomainError("not_found", "No such passkey");
    await this.deps.checkPassword(user, password, ip, "password");
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.deleteFrom("passkeys").where("id", "=", id).where("user_id", "=", user.id).returning(["id", "name"]).executeTakeFirst();
      if (!row) throw new DomainError("not_found", "No such passkey");
      await this.deps.audit.record(trx, { id: user.id, email: user.email }, now, {
        action: "passkey.removed",
        targetType: "account",
        targetId: user.id,
        summary: `Passkey "${row.name}" removed`,
        before: { passkey_id: row.id, name: row.name },
      });
    });
  }
}
