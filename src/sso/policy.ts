// What the sign-in page offers under single sign-on (docs/sso.md), and the operators' break-glass accounts
// that keep password sign-in under OIDC_ONLY. Whether a way in is refused is decided by the door (src/auth/).
import type { SsoOptionsReply } from "../contract/sso.js";
import type { SsoDeps } from "./deps.js";

export class SsoPolicy {
  constructor(private readonly deps: SsoDeps) {}

  options(): Omit<SsoOptionsReply, "status"> {
    const o = this.deps.settings.oidc;
    return { instance: o ? { name: o.name } : null, password_sign_in: !o?.only, password_sign_up: !o?.only };
  }

  /** `snip user create --admin --break-glass`: this operator keeps password sign-in under OIDC_ONLY. */
  async markBreakGlass(userId: string): Promise<void> {
    await this.deps.db
      .insertInto("sso_break_glass")
      .values({ user_id: userId, created_at: this.deps.clock.now() })
      .onConflict((oc) => oc.column("user_id").doNothing())
      .execute();
  }
}
