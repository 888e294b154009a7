// The one door (docs/security.md): every way to a session goes through here. Each way proves the person its
// own way (password, code, passkey, provider), then asks the one decision (decide.ts) on the account as it
// is now; only an Admission opens a session, and every sign-in and refusal lands in the account's activity.
import type { UserRow } from "../storage/schema.js";
import { DomainError, invalid } from "../shared/errors.js";
import type { AccountService } from "../accounts/accounts.js";
import type { SessionService } from "../accounts/sessions.js";
import type { TwoFactorService, SecondStep } from "../security/two-factor.js";
import type { PasskeyService } from "../security/passkeys.js";
import type { SignInDevice, SignInNotices } from "../security/sign-in-notice.js";
import type { Sso } from "../sso/index.js";
import type { AuthenticationResponse } from "../contract/passkeys.js";
import type { Admission, SignInDecision } from "./decide.js";
import type { SecurityActivity } from "./activity.js";
import type { SecurityAlerts } from "./alerts.js";
import type { Way } from "./ways.js";

export interface DoorDeps {
  accounts: AccountService;
  sessions: SessionService;
  twoFactor: TwoFactorService;
  passkeys: PasskeyService;
  notices: SignInNotices;
  sso: Pick<Sso, "signIn">;
  decision: SignInDecision;
  activity: SecurityActivity;
  alerts: SecurityAlerts;
}

/** Where a sign-in's request came from: its client address (throttles) and what the activity list shows. */
export interface Visitor {
  ip: string;
  device: SignInDevice;
  /** The browser's current session id (signed out or in): it ends when a new session opens. */
  sessionId: string | null;
}

/** A session the door opened: the cookie's value and the account. */
export interface Opened {
  kind: "session";
  sessionId: string;
  user: UserRow;
}

/** A right password of an account with two-factor sign-in: the pending sign-in's cookie value and its methods. */
export interface Pending {
  kind: "pending";
  token: string;
  methods: string[];
}

const REFUSALS_RECORDED = new Set(["invalid_credentials", "sso_required", "invalid_request", "passkey_rejected", "invalid_challenge"]);

export class SignInDoor {
  constructor(private readonly deps: DoorDeps) {}

  /** Opens a session for an admission (the only place that does), ending the browser's previous one. */
  private async open(admission: Admission, v: Visitor): Promise<Opened> {
    const { accounts, sessions, notices, activity } = this.deps;
    const user = await accounts.noteSignedIn(admission.user);
    if (v.sessionId) await sessions.destroy(v.sessionId);
    const sessionId = await sessions.create(user.id, v.device, admission.way);
    await notices.signedIn(user, v.device).catch(() => undefined);
    await activity.record(user.id, { kind: "sign_in", way: admission.way, device: v.device });
    return { kind: "session", sessionId, user };
  }

  /** Runs a way's proof and decision; a refusal of a known account is kept in its activity, then thrown again. */
  private async refusalsNoted<T>(way: Way, v: Visitor, account: () => Promise<UserRow | null>, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof DomainError && REFUSALS_RECORDED.has(e.code)) {
        const user = await account().catch(() => null);
        if (user) await this.deps.activity.record(user.id, { kind: "sign_in", way, outcome: "refused", device: v.device, detail: e.code });
      }
      throw e;
    }
  }

  /** Password sign-in: a session, or a pending sign-in when the account has two-factor sign-in on. */
  async password(email: string, password: string, v: Visitor): Promise<Opened | Pending> {
    const { decision, accounts, twoFactor } = this.deps;
    const admission = await this.refusalsNoted(
      "password",
      v,
      () => (email.length <= 254 ? accounts.byEmail(email) : Promise.resolve(null)),
      async () => {
        await decision.beforeCheck(email, "password");
        return decision.admit(await accounts.signIn(email, password, v.ip), "password", email);
      },
    );
    if (admission.secondStep.length > 0) return { kind: "pending", token: await twoFactor.startPending(admission.user.id), methods: admission.secondStep };
    return this.open(admission, v);
  }

  /** The second step with a code or a recovery code: the pending sign-in used up, the policies asked again. */
  async secondStep(token: string | undefined, step: SecondStep, v: Visitor): Promise<Opened> {
    const { twoFactor, accounts, decision } = this.deps;
    let userId: string | null = null;
    const admission = await this.refusalsNoted(
      "second_step",
      v,
      () => (userId ? accounts.byId(userId) : Promise.resolve(null)),
      async () => {
        const pending = await twoFactor.pending(token, (id) => accounts.byId(id));
        userId = pending.user.id;
        const user = await twoFactor.finishPending(token, step, (id) => accounts.byId(id));
        return decision.admit(user, "second_step");
      },
    );
    return this.open(admission, v);
  }

  /** Options for the second step with a passkey: the pending sign-in's account's passkeys only. */
  async secondStepPasskeyOptions(token: string | undefined) {
    const { tokenHash, user } = await this.deps.twoFactor.pending(token, (id) => this.deps.accounts.byId(id));
    return this.deps.passkeys.authenticationOptions("second-factor", tokenHash, user.id);
  }

  async secondStepPasskey(token: string | undefined, response: AuthenticationResponse, v: Visitor): Promise<Opened> {
    const { twoFactor, accounts, passkeys, decision } = this.deps;
    const { tokenHash, user: pendingUser } = await twoFactor.pending(token, (id) => accounts.byId(id));
    const admission = await this.refusalsNoted(
      "second_step",
      v,
      async () => pendingUser,
      async () => {
        const user = await passkeys.finishAuthentication("second-factor", tokenHash, response);
        await twoFactor.takePending(tokenHash);
        return decision.admit(user, "second_step");
      },
    );
    return this.open(admission, v);
  }

  /** A passwordless sign-in's options, under the address's throttles. */
  async passkeyOptions(binding: string, ip: string) {
    await this.deps.accounts.passwordless.start(ip);
    return this.deps.passkeys.authenticationOptions("login", binding, null);
  }

  /** A passkey alone: the assertion proves the account, then the same policies as a password (SSO required, OIDC_ONLY). */
  async passkey(binding: string, response: AuthenticationResponse, v: Visitor): Promise<Opened> {
    const { accounts, passkeys, decision } = this.deps;
    let proved: UserRow | null = null;
    const admission = await this.refusalsNoted(
      "passkey",
      v,
      async () => proved,
      () =>
        accounts.passwordless.answer(v.ip, async () => {
          proved = await passkeys.signIn(binding, response);
          return decision.admit(proved, "passkey");
        }),
    );
    return this.open(admission, v);
  }

  /** The identity provider's answer: the account it vouched for, under the same decision. */
  async sso(currentUrl: URL, cookieState: string | undefined, v: Visitor): Promise<Opened> {
    const { user, instance } = await this.deps.sso.signIn.callback(currentUrl, cookieState);
    const way: Way = instance ? "sso_instance" : "sso";
    return this.open(
      await this.refusalsNoted(
        way,
        v,
        async () => user,
        () => this.deps.decision.admit(user, way),
      ),
      v,
    );
  }

  /** A SAML identity provider's Response at a connection's ACS: the account it vouched for, the same way and decision as OpenID's. */
  async saml(connectionId: string, samlResponse: string, cookieState: string | undefined, v: Visitor): Promise<Opened> {
    const user = await this.deps.sso.signIn.saml.acs(connectionId, samlResponse, cookieState);
    return this.open(
      await this.refusalsNoted(
        "sso",
        v,
        async () => user,
        () => this.deps.decision.admit(user, "sso"),
      ),
      v,
    );
  }

  /** Sign-up: the address's policies first, then the new account signed in. */
  async signUp(input: { email: string; password: string; name?: string }, v: Visitor): Promise<Opened & { emailSent: boolean }> {
    await this.deps.decision.beforeCheck(input.email, "signup");
    const { user, emailSent } = await this.deps.accounts.signUp(input, v.ip);
    return { ...(await this.open(await this.deps.decision.admit(user, "signup"), v)), emailSent };
  }

  /** A reset link is sent only to an account whose policies let a password in; the answer says nothing either way. */
  async requestPasswordReset(email: string): Promise<void> {
    const { accounts, decision } = this.deps;
    try {
      await decision.beforeCheck(email, "password_reset");
      const user = email.length <= 254 ? await accounts.byEmail(email) : null;
      if (user) await decision.admit(user, "password_reset");
    } catch (e) {
      if (e instanceof DomainError && e.code === "sso_required") return;
      throw e;
    }
    await accounts.requestPasswordReset(email);
  }

  /** A new password by the emailed link: refused where SSO is required; ends every session and pending sign-in. */
  async confirmPasswordReset(token: string, password: string, device: SignInDevice): Promise<void> {
    const { accounts, decision, twoFactor, activity, alerts } = this.deps;
    const user = await accounts.resetLinkAccount(token);
    if (!user) throw invalid("token", "is invalid or has expired");
    await decision.admit(user, "password_reset");
    await accounts.confirmPasswordReset(token, password);
    await twoFactor.dropPendingOf(user.id);
    await activity.record(user.id, { kind: "password_reset", device });
    alerts.send(user.email, "password_reset", device);
  }
}
