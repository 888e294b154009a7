// The plan capability table: code asks can(plan, capability); per-plan numbers live here too.
import { DomainError } from "../shared/errors.js";
import { type Capability, type Plan, PLANS, PLAN_CAPABILITIES, PLAN_LABELS, PLAN_MAX_LINKS, can, isPlan, requiredPlan } from "../contract/plans.js";

export { type Capability, type Plan, PLANS, can, isPlan, requiredPlan };

interface PlanInfo {
  label: string;
  capabilities: ReadonlySet<Capability>;
  /** Links one account may own. */
  maxLinks: number;
  /** Lines per bulk request. */
  bulkBatchSize: number;
}

export const PLAN_TABLE: Readonly<Record<Plan, PlanInfo>> = {
  free: { label: PLAN_LABELS.free, capabilities: PLAN_CAPABILITIES.free, maxLinks: PLAN_MAX_LINKS.free, bulkBatchSize: 0 },
  pro: { label: PLAN_LABELS.pro, capabilities: PLAN_CAPABILITIES.pro, maxLinks: PLAN_MAX_LINKS.pro, bulkBatchSize: 0 },
  business: { label: PLAN_LABELS.business, capabilities: PLAN_CAPABILITIES.business, maxLinks: PLAN_MAX_LINKS.business, bulkBatchSize: 500 },
  enterprise: { label: PLAN_LABELS.enterprise, capabilities: PLAN_CAPABILITIES.enterprise, maxLinks: PLAN_MAX_LINKS.enterprise, bulkBatchSize: 5_000 },
};

export function planOf(value: string): Plan {
  return isPlan(value) ? value : "free";
}

export function requireCapability(plan: string, capability: Capability, what: string): void {
  if (!can(plan, capability)) {
    const needed = requiredPlan(capability);
    throw new DomainError("plan_required", `${what} needs the ${PLAN_TABLE[needed].label} plan or above`, undefined, {
      required_plan: needed,
    });
  }
}

export function planLimits(plan: string): { maxLinks: number; bulkBatchSize: number } {
  const info = PLAN_TABLE[planOf(plan)];
  return { maxLinks: info.maxLinks, bulkBatchSize: info.bulkBatchSize };
}
