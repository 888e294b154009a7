// The plan capability table: code asks can(plan, capability); per-plan numbers live here too.
import { DomainError } from "../shared/errors.js";

export const PLANS = ["free", "pro", "business", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export type Capability =
  | "link_expiration"
  | "link_max_clicks"
  | "advanced_stats"
  | "stats_csv"
  | "bulk_create"
  | "team_invite"
  | "custom_domains"
  | "external_api"
  | "webhooks";

interface PlanInfo {
  label: string;
  capabilities: ReadonlySet<Capability>;
  /** Links one account may own. */
  maxLinks: number;
  /** Lines per bulk request. */
  bulkBatchSize: number;
}

const PRO: Capability[] = ["link_expiration", "link_max_clicks", "advanced_stats", "stats_csv"];
const BUSINESS: Capability[] = [...PRO, "bulk_create", "team_invite", "custom_domains", "external_api", "webhooks"];

export const PLAN_TABLE: Readonly<Record<Plan, PlanInfo>> = {
  free: { label: "Free", capabilities: new Set(), maxLinks: 100, bulkBatchSize: 0 },
  pro: { label: "Pro", capabilities: new Set(PRO), maxLinks: 5_000, bulkBatchSize: 0 },
  business: { label: "Business", capabilities: new Set(BUSINESS), maxLinks: 100_000, bulkBatchSize: 500 },
  enterprise: { label: "Enterprise", capabilities: new Set(BUSINESS), maxLinks: 10_000_000, bulkBatchSize: 5_000 },
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export function planOf(value: string): Plan {
  return isPlan(value) ? value : "free";
}

export function can(plan: string, capability: Capability): boolean {
  return PLAN_TABLE[planOf(plan)].capabilities.has(capability);
}

/** The cheapest plan that has the capability (for "required_plan" in errors and upgrade hints). */
export function requiredPlan(capability: Capability): Plan {
  return PLANS.find((p) => PLAN_TABLE[p].capabilities.has(capability)) ?? "enterprise";
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
