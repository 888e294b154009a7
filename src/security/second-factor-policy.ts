// Whether an account must have a second factor, and why: the operator policy (OPERATOR_REQUIRE_2FA) and the team
// policy of each Enterprise owner it is a member of. The one answer the operator guard, the team access check,
// GET /api/team and the security page's status all ask, so they cannot disagree on who is asked for one.
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import { PLANS, can } from "../accounts/plans.js";
import { hasSecondFactor } from "../storage/second-factors.js";

type PolicyOwner = Pick<UserRow, "id" | "team_require_2fa" | "plan">;

/** An owner's team policy holds while it is set and the owner's plan still has team_2fa_policy (a downgrade suspends it). */
export function teamPolicyInForce(owner: Pick<UserRow, "team_require_2fa" | "plan">): boolean {
  return Number(owner.team_require_2fa) === 1 && can(owner.plan, "team_2fa_policy");
}

export interface SecondFactorDemand {
  /** Some policy asks this account for a second factor. */
  required: boolean;
  /** Asked for one and has none: the routes of those policies refuse it with 2fa_setup_required. */
  missing: boolean;
  /** OPERATOR_REQUIRE_2FA applies to it (an operator). */
  operator: boolean;
  /** The team owners (ids) whose policy applies to it as a member. */
  teams: string[];
}

export interface DemandScope {
  /** OPERATOR_REQUIRE_2FA; absent or false, the operator policy asks nothing. */
  operatorPolicy?: boolean;
  /** Whose team policies count: every team the account belongs to, one owner's (its row, already read), or none. */
  teams: "all" | "none" | PolicyOwner;
}

/** The owners of the account's teams whose policy is in force (the plan check as teamPolicyInForce, in SQL). */
async function demandingTeams(db: Db, memberId: string): Promise<string[]> {
  const plans = PLANS.filter((p) => can(p, "team_2fa_policy"));
  const rows = await db
    .selectFrom("team_members")
    .innerJoin("users", "users.id", "team_members.owner_id")
    .select("users.id")
    .where("team_members.member_id", "=", memberId)
    .where("users.team_require_2fa", "=", 1)
    .where("users.plan", "in", plans)
    .execute();
  return rows.map((r) => r.id);
}

/** Whether (and why) `account` must have a second factor within `scope`, and whether it lacks one. */
export async function secondFactorDemand(db: Db, account: Pick<UserRow, "id" | "is_admin">, scope: DemandScope): Promise<SecondFactorDemand> {
  const operator = scope.operatorPolicy === true && Number(account.is_admin) === 1;
  const teams =
    scope.teams === "all" ? await demandingTeams(db, account.id) : scope.teams === "none" ? [] : teamPolicyInForce(scope.teams) ? [scope.teams.id] : [];
  const required = operator || teams.length > 0;
  // The factor is looked up only when a policy asks for one: most requests of most accounts skip the query.
  const missing = required && !(await hasSecondFactor(db, account.id));
  return { required, missing, operator, teams };
}
