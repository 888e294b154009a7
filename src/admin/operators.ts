// Who is an operator: the admin flag on an account, set from the command line (the first operator has
// no console to do it from), audited like every operator action.
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import { type Actor, type AuditLog } from "./audit-log.js";

export async function setOperator(deps: { db: Db; clock: Clock; audit: AuditLog }, actor: Actor, email: string, on: boolean): Promise<UserRow> {
  const normalized = email.trim().toLowerCase();
  return deps.db.transaction().execute(async (trx) => {
    const user = await trx.selectFrom("users").selectAll().where("email", "=", normalized).executeTakeFirst();
    if (!user) throw new DomainError("not_found", `No account with email ${normalized}`);
    const was = Number(user.is_admin) === 1;
    if (was === on) return user;
    const now = deps.clock.now();
    await trx
      .updateTable("users")
      .set({ is_admin: on ? 1 : 0, updated_at: now })
      .where("id", "=", user.id)
      .execute();
    await deps.audit.record(trx, actor, now, {
      action: "account.admin",
      targetType: "account",
      targetId: user.id,
      summary: `${user.email} ${on ? "made an operator" : "no longer an operator"}`,
      before: { is_admin: was },
      after: { is_admin: on },
    });
    return { ...user, is_admin: on ? 1 : 0, updated_at: now };
  });
}
