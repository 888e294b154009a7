// Changes of how an account signs in (docs/security.md, Sudo mode and alerts): each asks for a fresh proof of
// identity (sudo mode: the sign-in or POST /api/auth/reauth in the last 10 minutes of this session), ends
// what it must (sessions, pending sign-ins), lands in the account's activity, and sends its security alert.
import type { UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import type { AccountService } from "../accounts/accounts.js";
import type { SessionService } from "../accounts/sessions.js";
import type { ApiKeyService } from "../accounts/api-keys.js";
import type { TwoFactorService } from "../security/two-factor.js";
import type { PasskeyService } from "../security/passkeys.js";
import type { TeamPolicy } from "../security/team-policy.js";
import type { SignInDevice } from "../security/sign-in-notice.js";
import type { Sso } from "../sso/index.js";
import type { Db } from "../storage/db.js";
import type { CreateKeyBody } from "../contract/api-keys.js";
import type { AuthenticationResponse, RegisterVerifyBody } from "../contract/passkeys.js";
import type { SamlPutBody, SsoConnection, SsoPutBody } from "../contract/sso.js";
import type { SecurityActivity, ActivityKind } from "./activity.js";
import type { SecurityAlerts } from "./alerts.js";

/** How long a proof of identity lets a session change how the account signs in. */
export const SUDO_WINDOW_MS = 10 * 60_000;

/** The signed-in request as the door sees it. */
export interface SignedInSession {
  id: string;
  user: UserRow;
  /** Epoch ms of the last proof of identity in this session (null: never). */
  reauthAt: number | null;
  ip: string;
  device: SignInDevice;
}

export interface ChangesDeps {
  db: Db;
  clock: Clock;
  accounts: AccountService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
  twoFactor: TwoFactorService;
  passkeys: PasskeyService;
  teamPolicy: TeamPolicy;
  sso: Pick<Sso, "connections" | "saml">;
  activity: SecurityActivity;
  alerts: SecurityAlerts;
}

const REAUTH_BINDING = (sessionId: string) => `reauth:${sessionId}`;

export class AccountChanges {
  constructor(private readonly deps: ChangesDeps) {}

  /** Until when the session is in sudo mode (null: it is not). */
  sudoUntil(s: Pick<SignedInSession, "reauthAt">): number | null {
    if (s.reauthAt === null) return null;
    const until = s.reauthAt + SUDO_WINDOW_MS;
    return until > this.deps.clock.now() ? until : null;
  }

  /** 403 reauth_required unless the session proved its owner in the last 10 minutes. */
  requireSudo(s: SignedInSession): void {
    if (this.sudoUntil(s) === null) {
      throw new DomainError("reauth_required", "Confirm it is you first: POST /api/auth/reauth with your password or a passkey (good for 10 minutes)");
    }
  }

  private async note(s: SignedInSession, kind: ActivityKind, detail?: string | null): Promise<void> {
    await this.deps.activity.record(s.user.id, { kind, device: s.device, detail });
    this.deps.alerts.send(s.user.email, kind, s.device, detail);
  }

  /** Sudo mode with the account password (under the sign-in throttle); returns until when. */
  async reauthWithPassword(s: SignedInSession, password: string): Promise<number> {
    try {
      await this.deps.accounts.checkCurrentPassword(s.user, password, s.ip, "password");
    } catch (e) {
      if (e instanceof DomainError && e.code === "invalid_request")
        await this.deps.activity.record(s.user.id, { kind: "reauth", outcome: "refused", device: s.device, detail: "password" });
      throw e;
    }
    return this.openSudo(s, "password");
  }

  /** Options for a reauth with one of the account's passkeys, bound to this session. */
  reauthPasskeyOptions(s: SignedInSession) {
    return this.deps.passkeys.authenticationOptions("second-factor", REAUTH_BINDING(s.id), s.user.id);
  }

  async reauthWithPasskey(s: SignedInSession, response: AuthenticationResponse): Promise<number> {
    const user = await this.deps.passkeys.finishAuthentication("second-factor", REAUTH_BINDING(s.id), response);
    if (user.id !== s.user.id) throw new DomainError("invalid_credentials", "This passkey was not accepted");
    return this.openSudo(s, "passkey");
  }

  private async openSudo(s: SignedInSession, how: string): Promise<number> {
    const at = await this.deps.sessions.markReauthenticated(s.id);
    await this.deps.activity.record(s.user.id, { kind: "reauth", device: s.device, detail: how });
    return at + SUDO_WINDOW_MS;
  }

  // Two-factor sign-in.

  async setUpTotp(s: SignedInSession) {
    this.requireSudo(s);
    return this.deps.twoFactor.setup(s.user);
  }

  /** Turns TOTP on; every other session of the account ends (a copied cookie keeps nothing). */
  async enableTotp(s: SignedInSession, code: string): Promise<string[]> {
    this.requireSudo(s);
    const codes = await this.deps.twoFactor.enable(s.user, code);
    await this.deps.sessions.destroyAllFor(s.user.id, s.id);
    await this.note(s, "2fa_enabled");
    return codes;
  }

  async disableTotp(s: SignedInSession, password: string, code: string): Promise<void> {
    await this.deps.twoFactor.disable(s.user, password, code, s.ip);
    await this.note(s, "2fa_disabled");
  }

  async regenerateRecoveryCodes(s: SignedInSession, password: string, code: string): Promise<string[]> {
    const codes = await this.deps.twoFactor.regenerateRecoveryCodes(s.user, password, code, s.ip);
    await this.note(s, "recovery_codes_regenerated");
    return codes;
  }

  // Passkeys.

  async passkeyRegistrationOptions(s: SignedInSession) {
    this.requireSudo(s);
    return this.deps.passkeys.registrationOptions(s.user, s.id);
  }

  async addPasskey(s: SignedInSession, body: RegisterVerifyBody) {
    this.requireSudo(s);
    const passkey = await this.deps.passkeys.register(s.user, s.id, body);
    await this.note(s, "passkey_added", passkey.name);
    return passkey;
  }

  async removePasskey(s: SignedInSession, id: string, password: string): Promise<void> {
    await this.deps.passkeys.remove(s.user, id, password, s.ip);
    await this.note(s, "passkey_removed");
  }

  // API keys.

  async createApiKey(s: SignedInSession, body: CreateKeyBody) {
    this.requireSudo(s);
    const created = await this.deps.apiKeys.create(s.user, body);
    await this.note(s, "api_key_created", created.key.name);
    return created;
  }

  async revokeApiKey(s: SignedInSession, id: string) {
    const key = await this.deps.apiKeys.revoke(s.user, id);
    await this.note(s, "api_key_revoked", key.name);
    return key;
  }

  // Sessions and password.

  async revokeSession(s: SignedInSession, publicId: string): Promise<void> {
    await this.deps.sessions.revoke(s.user.id, publicId);
    await this.note(s, "session_revoked");
  }

  async revokeOtherSessions(s: SignedInSession): Promise<number> {
    const n = await this.deps.sessions.destroyAllFor(s.user.id, s.id);
    await this.note(s, "sessions_revoked", String(n));
    return n;
  }

  /** A new password: every other session and every pending sign-in ends. */
  async changePassword(s: SignedInSession, current: string, next: string): Promise<void> {
    await this.deps.accounts.changePassword(s.user, current, next, s.ip);
    await this.deps.sessions.destroyAllFor(s.user.id, s.id);
    await this.deps.twoFactor.dropPendingOf(s.user.id);
    await this.note(s, "password_changed");
  }

  // The organisation's policies.

  async setTeamPolicy(s: SignedInSession, require2fa: boolean) {
    this.requireSudo(s);
    return this.deps.teamPolicy.set(s.user, require2fa);
  }

  async setSsoConnection(s: SignedInSession, body: SsoPutBody): Promise<SsoConnection> {
    this.requireSudo(s);
    const before = await this.deps.sso.connections.get(s.user);
    const after = await this.deps.sso.connections.set(s.user, body);
    await this.enforceRequiredSso(s.user, before, after);
    return after;
  }

  /** The SAML identity provider's metadata on the caller's connection (sudo mode, as every SSO change). */
  async setSamlIdp(s: SignedInSession, body: SamlPutBody): Promise<SsoConnection> {
    this.requireSudo(s);
    await this.deps.sso.saml.setIdp(s.user, body);
    return (await this.deps.sso.connections.get(s.user)) as SsoConnection;
  }

  async removeSsoConnection(s: SignedInSession): Promise<void> {
    this.requireSudo(s);
    await this.deps.sso.connections.remove(s.user);
  }

  /** A domain verified while "Require SSO" is on: its people's other sessions end as at turning it on. */
  async verifySsoDomain(s: SignedInSession, domain: string) {
    const before = await this.deps.sso.connections.get(s.user);
    const verified = await this.deps.sso.connections.verifyDomain(s.user, domain);
    const after = await this.deps.sso.connections.get(s.user);
    if (after) await this.enforceRequiredSso(s.user, before, after);
    return verified;
  }

  /**
   * "Require SSO" newly holding for verified domains (turned on, or a domain verified while on): the sessions
   * of those addresses not made by this single sign-on end, their pending sign-ins too, and each account is told.
   */
  private async enforceRequiredSso(owner: UserRow, before: SsoConnection | null, after: SsoConnection): Promise<void> {
    if (!after.require_sso) return;
    const wasHeld = (d: string) => before?.require_sso === true && before.domains.some((x) => x.domain === d && x.status === "verified");
    const domains = after.domains.filter((d) => d.status === "verified" && !wasHeld(d.domain)).map((d) => d.domain);
    if (domains.length === 0) return;
    const { db, sessions, twoFactor, activity, alerts } = this.deps;
    const candidates = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where((eb) => eb.or(domains.map((d) => eb("email", "like", `%@${d}`))))
      .where("id", "!=", owner.id)
      .execute();
    const people = candidates.filter((u) => domains.some((d) => u.email.endsWith(`@${d}`)));
    await sessions.destroyNotMadeBy(
      people.map((p) => p.id),
      "sso",
    );
    for (const p of people) {
      await twoFactor.dropPendingOf(p.id);
      await activity.record(p.id, { kind: "sso_required", detail: p.email.slice(p.email.indexOf("@") + 1) });
      alerts.send(p.email, "sso_required", null);
    }
  }
}
