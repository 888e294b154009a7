// What the sign-in page offers under single sign-on (docs/sso.md), and the operators' break-glass accounts
// that keep password sign-in under OIDC_ONLY. Whether a way in is refused is decided by the door (src/auth/).
import type { SsoOptionsReply } from "../contract/sso.js";
import type { SsoDeps } from "./deps.js";
import { PLANS, can } from "../accounts/plans.js";

export class SsoPolicy {
  constructor(private readonly deps: SsoDeps) {}

  async options(): Promise<Omit<SsoOptionsReply, "status">> {
    const o = this.deps.settings.oidc;
    return { instance: o ? { name: o.name } : null, password_sign_in: !o?.only, password_sign_up: !o?.only, email_sso: await this.anyEmailConnection() };
  }

  /** True when an address can sign in through an organisation's connection: a verified domain of an owner whose plan has SSO. */
  private async anyEmailConnection(): Promise<boolean> {
    const row = await this.deps.db
      .selectFrom("sso_domains")
      .innerJoin("sso_connections", "sso_connections.id", "sso_domains.connection_id")
      .innerJoin("users", "users.id", "sso_connections.owner_id")
      .select("sso_domains.domain")
      .where("sso_domains.status", "=", "verified")
      .where(
        "users.plan",
        "in",
        PLANS.filter((p) => can(p, "sso")),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
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
