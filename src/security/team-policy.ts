// The Enterprise owner's team policy: members must have two-factor sign-in to reach the owner's links
// (teams/access.ts refuses them with 2fa_setup_required until they do).
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import type { UserRow } from "../storage/schema.js";
import { requireCapability } from "../accounts/plans.js";
import type { AuditWriter } from "../storage/audit-writer.js";

export class TeamPolicy {
  constructor(private readonly deps: { db: Db; clock: Clock; audit: AuditWriter }) {}

  get(owner: UserRow): { require_2fa: boolean } {
    return { require_2fa: Number(owner.team_require_2fa) === 1 };
  }

  async set(owner: UserRow, require2fa: boolean): Promise<{ require_2fa: boolean }> {
    requireCapability(owner.plan, "team_2fa_policy", "Requiring two-factor sign-in of team members");
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("users")
        .set({ team_require_2fa: require2fa ? 1 : 0, updated_at: now })
        .where("id", "=", owner.id)
        .execute();
      await this.deps.audit.record(trx, { id: owner.id, email: owner.email }, now, {
        action: "team.2fa_policy",
        teamId: owner.id,
        targetType: "account",
        targetId: owner.id,
        summary: require2fa ? "required two-factor sign-in of team members" : "stopped requiring two-factor sign-in of team members",
        after: { require_2fa: require2fa },
      });
    });
    return { require_2fa: require2fa };
  }
}
