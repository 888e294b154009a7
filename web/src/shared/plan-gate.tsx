// What a plan lacks, said without a dead end: which plan has the feature, and what to do on a self-hosted
// service (there is no shop: the operator sets plans).
import { CAPABILITY_LABELS, PLANS, PLAN_LABELS, type Capability, type Plan, can, listWords, requiredPlan } from "../../../src/contract/plans";
import { useSession } from "./session";

export { can, requiredPlan, type Capability };

export function planName(plan: string): string {
  return PLAN_LABELS[plan as Plan] ?? plan;
}

/** A notice in place of a feature the user's plan lacks. `plan` names the plan when no capability says it. */
export function PlanGate(props: { feature: string; capability?: Capability; plan?: Plan; testId?: string }) {
  const needed = props.plan ?? (props.capability ? requiredPlan(props.capability) : "business");
  const { user } = useSession();
  return (
    <div className="plan-gate" data-testid={props.testId ?? "plan-gate"}>
      <p>
        <span className="badge badge-plan">{planName(needed)}</span> {props.feature}:{" "}
        {needed === "enterprise" ? "on the Enterprise plan" : `on the ${planName(needed)} plan and above`}
        {user ? `; your account is on ${planName(user.plan)}` : ""}.
      </p>
      <p className="muted small" data-testid="plan-gate-how">
        Plans on this service are set by its operator: ask the operator of this service to move your account to {planName(needed)}.
      </p>
    </div>
  );
}

/**
 * A form's one plan note: every feature of the form the plan lacks, grouped by the plan that has it (words from
 * the capability table), and how to get it. The sections themselves carry a PlanLock line only.
 */
export function FormPlanNote({ missing, testId = "form-plan-note" }: { missing: Capability[]; testId?: string }) {
  const { user } = useSession();
  if (missing.length === 0) return null;
  const byPlan = PLANS.map((p) => [p, missing.filter((c) => requiredPlan(c) === p)] as const).filter(([, caps]) => caps.length > 0);
  return (
    <div className="plan-gate" data-testid={testId}>
      {byPlan.map(([plan, caps]) => (
        <p key={plan}>
          <span className="badge badge-plan">{planName(plan)}</span> {listWords(caps.map((c) => CAPABILITY_LABELS[c])).replace(/^./, (ch) => ch.toUpperCase())}:{" "}
          {plan === "enterprise" ? "on the Enterprise plan" : `on the ${planName(plan)} plan and above`}.
        </p>
      ))}
      <p className="muted small" data-testid="plan-gate-how">
        {user ? `Your account is on ${planName(user.plan)}. ` : ""}Plans on this service are set by its operator: ask the operator of this service to move your
        account.
      </p>
    </div>
  );
}

/** A form section's short line on the plan its feature needs (the form's FormPlanNote says the rest once). */
export function PlanLock(props: { feature: string; capability: Capability; testId: string }) {
  const needed = requiredPlan(props.capability);
  return (
    <p className="muted small plan-lock" data-testid={props.testId}>
      <span className="badge badge-plan">{planName(needed)}</span> {props.feature}:{" "}
      {needed === "enterprise" ? "on the Enterprise plan" : `on the ${planName(needed)} plan and above`}.
    </p>
  );
}

/** The small mark beside a nav entry whose feature the user's plan lacks. */
export function PlanMark({ capability, testId = `plan-mark-${capability}` }: { capability: Capability; testId?: string }) {
  const { user } = useSession();
  if (!user || can(user.plan, capability)) return null;
  const needed = planName(requiredPlan(capability));
  return (
    <span className="nav-plan-mark" title={`Needs the ${needed} plan`}>
      <svg width="10" height="10" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" aria-hidden="true">
        <rect x="4" y="11" width="16" height="10" rx="2" />
        <path d="M8 11V7a4 4 0 0 1 8 0v4" />
      </svg>
      <span className="nav-plan-mark-text" data-testid={testId}>
        {needed}
      </span>
    </span>
  );
}
