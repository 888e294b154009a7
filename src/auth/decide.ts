// The one decision every way in asks (docs/security.md, The one door): for an account (or an address, before
// there is one) and a way, whether the policies let it through (account state, "Require SSO", OIDC_ONLY with
// its break-glass operators) and whether a second step must follow. Nothing else makes a session.
import type { UserRow } from "../storage/schema.js";
import { DomainError } from "../shared/errors.js";
import type { Sso } from "../sso/index.js";
import type { TwoFactorService } from "../security/two-factor.js";
import { WAYS, type Way } from "./ways.js";

/** A way let through for an account: only the door makes these, and only with one a session opens. */
export interface Admission {
  readonly user: UserRow;
  readonly way: Way;
  /** Non-empty: no session yet; the second step's methods ("totp", "recovery_code", "passkey"). */
  readonly secondStep: string[];
}

export interface DecideDeps {
  sso: Pick<Sso, "signIn">;
  twoFactor: Pick<TwoFactorService, "methodsFor">;
  /** OIDC_ONLY and the instance-wide provider's name (null: not configured). */
  oidc: { only: boolean; name: string } | null;
}

const ssoRequired = () => new DomainError("sso_required", "Your organisation requires single sign-on: continue with single sign-on");

export class SignInDecision {
  constructor(private readonly deps: DecideDeps) {}

  /** Whether "Require SSO" holds for this address: a verified domain of a connection that requires it, not its owner's address. */
  async ssoRequiredFor(email: string): Promise<boolean> {
    const at = email.lastIndexOf("@");
    if (at < 1 || email.length > 254) return false;
    const c = await this.deps.sso.signIn.connectionFor(email);
    return c !== null && Number(c.require_sso) === 1 && c.owner_email !== email;
  }

  /**
   * The address's policies that need no account (known to anyone who starts SSO with the address, so asking
   * them before a password is checked tells nothing): "Require SSO", and OIDC_ONLY for ways without break-glass.
   */
  async beforeCheck(rawEmail: string, way: Way): Promise<void> {
    const rules = WAYS[way];
    const o = this.deps.oidc;
    if (o?.only && rules.oidcOnly === "refuse") throw new DomainError("sso_required", `Sign-up and sign-in are through ${o.name} on this service`);
    if (rules.requireSso === "refuse" && (await this.ssoRequiredFor(rawEmail.trim().toLowerCase()))) throw ssoRequired();
  }

  /**
   * After the way proved the person (password, passkey, code, provider): every policy again, on the account
   * as it is now. OIDC_ONLY is asked here, after the proof, so that it does not tell which accounts are
   * break-glass ones. A suspended account is let in (it reads, it cannot change anything: docs/operator.md).
   */
  async admit(user: UserRow, way: Way, askedBefore?: string): Promise<Admission> {
    const rules = WAYS[way];
    // `askedBefore`: the address beforeCheck just asked "Require SSO" of, in this same sign-in (one lookup, not two).
    if (rules.requireSso === "refuse" && askedBefore?.trim().toLowerCase() !== user.email && (await this.ssoRequiredFor(user.email))) throw ssoRequired();
    const o = this.deps.oidc;
    if (o?.only && rules.oidcOnly !== "allow") {
      const breakGlass = rules.oidcOnly === "break_glass" && Number(user.is_admin) === 1 && (await this.deps.sso.signIn.isBreakGlass(user.id));
      if (!breakGlass) throw new DomainError("sso_required", `Sign in with ${o.name}: password and passkey sign-in are off on this service`);
    }
    const secondStep = rules.asksSecondStep ? await this.deps.twoFactor.methodsFor(user.id) : [];
    return { user, way, secondStep };
  }
}
