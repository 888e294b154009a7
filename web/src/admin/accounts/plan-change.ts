// What a plan change means for an account, in the operator's words (the server's plan table, src/accounts/plans.ts).
import { planName } from "../../shared/plan-gate";
import { CAPABILITY_LABELS, PLANS, PLAN_MAX_LINKS, type Capability, type Plan, listWords, lostCapabilities } from "@contract/plans";
import { formatNumber } from "../../shared/numbers";

/** What losing a capability does at once, beyond the feature itself. */
const AT_ONCE: Partial<Record<Capability, string>> = {
  webhooks: "Webhooks: deliveries stop at once.",
  streams: "Click streams: publishing stops at once; events still waiting are dropped.",
  team_invite: "Team: members lose access to the account's links.",
  link_targeting: "Links keep their redirect rules and splits, which go on working; they can only be removed, not edited.",
};

export function isDowngrade(from: Plan, to: Plan): boolean {
  return PLANS.indexOf(to) < PLANS.indexOf(from);
}

/** The consequences listed in the confirmation before a plan change. */
export function planConsequences(from: Plan, to: Plan, links: number): string[] {
  if (!isDowngrade(from, to)) return [`Everything of the ${planName(to)} plan is available at once.`];
  // The words come from the capability table, so the dialog lists exactly what the server will refuse.
  const caps = lostCapabilities(from, to);
  const words = caps.map((c) => CAPABILITY_LABELS[c]);
  const lost = words.length ? [`Loses ${listWords(words)}.`, ...caps.flatMap((c) => (AT_ONCE[c] ? [AT_ONCE[c]] : []))] : [];
  const cap = PLAN_MAX_LINKS[to];
  lost.push(
    links > cap
      ? `At most ${formatNumber(cap)} links: it owns ${formatNumber(links)}, so it cannot create more until it has fewer.`
      : `At most ${formatNumber(cap)} links (it owns ${formatNumber(links)}).`,
  );
  return lost;
}
