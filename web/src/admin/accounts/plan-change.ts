// What a plan change means for an account, in the operator's words (the server's plan table, src/accounts/plans.ts).
import { planName } from "../../shared/plan-gate";
import { PLANS, PLAN_MAX_LINKS, type Plan } from "@contract/plans";

/** What an account loses when its plan goes below the plan named first. */
const LOST_BELOW: { from: Plan; what: string }[] = [
  { from: "business", what: "Webhooks: deliveries stop at once." },
  { from: "business", what: "Team: members lose access to the account's links." },
  { from: "business", what: "Custom domains, bulk creation and the external creation API." },
  { from: "pro", what: "Setting expiry dates and click limits on links, advanced statistics and CSV export." },
];

export function isDowngrade(from: Plan, to: Plan): boolean {
  return PLANS.indexOf(to) < PLANS.indexOf(from);
}

/** The consequences listed in the confirmation before a plan change. */
export function planConsequences(from: Plan, to: Plan, links: number): string[] {
  if (!isDowngrade(from, to)) return [`Everything of the ${planName(to)} plan is available at once.`];
  const lost = LOST_BELOW.filter((l) => PLANS.indexOf(l.from) <= PLANS.indexOf(from) && PLANS.indexOf(l.from) > PLANS.indexOf(to)).map((l) => l.what);
  const cap = PLAN_MAX_LINKS[to];
  lost.push(
    links > cap
      ? `At most ${cap.toLocaleString()} links: it owns ${links.toLocaleString()}, so it cannot create more until it has fewer.`
      : `At most ${cap.toLocaleString()} links (it owns ${links.toLocaleString()}).`,
  );
  return lost;
}
