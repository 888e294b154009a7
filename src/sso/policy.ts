// Where password sign-in gives way to single sign-on (docs/sso.md): "Require SSO" on a connection's verified
// domains (its owner excepted, so a broken provider cannot lock the team out), and OIDC_ONLY on the whole
// instance (operators' break-glass accounts excepted); and what the sign-in page offers.
import { DomainError } from "../shared/errors.js";
import type { UserRow } from "../storage/schema.js";
import type { SsoOptionsReply } from "../contract/sso.js";
import type { SsoDeps } from "./deps.js";
import type { SsoSignIn } from "./sign-in.js";

const required = (message: string) => new DomainError("sso_required", message);

export class SsoPolicy {
  constructor(
    private readonly deps: SsoDeps,
    private readonly signIn: SsoSignIn,
  ) {}

  options(): Omit<SsoOptionsReply, "status"> {
    const o = this.deps.settings.oidc;
    return { instance: o ? { name: o.name } : null, password_sign_in: !o?.only, password_sign_up: !o?.only };
  }

  private async requiredFor(email: string): Promise<boolean> {
    const at = email.lastIndexOf("@");
    if (at < 1 || email.length > 254) return false;
    const c = await this.signIn.connectionFor(email);
    return c !== null && Number(c.require_sso) === 1 && c.owner_email !== email;
  }

  /** Before a password sign-up. */
  async checkSignUp(rawEmail: string): Promise<void> {
    if (this.deps.settings.oidc?.only) throw required(`Sign-up is through ${this.deps.settings.oidc.name} on this service`);
    if (await this.requiredFor(rawEmail.trim().toLowerCase())) throw required("Your organisation requires single sign-on: continue with single sign-on");
  }

  /** Before the password is checked: the domain's policy (known to anyone who starts SSO with the address). */
  async checkSignIn(rawEmail: string): Promise<void> {
    if (await this.requiredFor(rawEmail.trim().toLowerCase())) throw required("Your organisation requires single sign-on: continue with single sign-on");
  }

  /** After the password was right, so that OIDC_ONLY does not tell which accounts are break-glass ones. */
  async checkSignedIn(user: UserRow): Promise<void> {
    const o = this.deps.settings.oidc;
    if (!o?.only) return;
    if (Number(user.is_admin) === 1 && (await this.signIn.isBreakGlass(user.id))) return;
    throw required(`Sign in with ${o.name}: password sign-in is off on this service`);
  }

  /** `snip user create --admin --break-glass`: this operator keeps password sign-in under OIDC_ONLY. */
  async markBreakGlass(userId: string): Promise<void> {
    await this.deps.db.insertInto("sso_break_glass").values({ user_id: userId, created_at: this.deps.clock.now() }).onConflict((oc) => oc.column("user_id").doNothing()).execute();
  }
}
