// A link's redirect rules and weighted split (docs/api.md, Redirect rules), checked for creation, edits,
// bulk rows and the external API alike, and stored as JSON text (links.rules, links.split). Every wrong
// field is named (`rules[2].if.country`); rules and splits follow the owner's plan (Business and above).
import { invalid, type FieldChecks } from "../shared/errors.js";
import { requireCapability } from "../accounts/plans.js";
import {
  MAX_RULES,
  MAX_SPLIT_MIN_VISITS,
  MAX_VARIANTS,
  MIN_VARIANTS,
  SPLIT_GOALS,
  type Rule,
  type RuleCondition,
  type SplitGoal,
  type Variant,
} from "../contract/targeting.js";
import { CONDITIONS } from "../contract/conditions/index.js";
import { countryCode as upperCountry } from "../contract/conditions/country.js";
import { instantOf } from "../contract/conditions/kind.js";
import { TARGETING_MESSAGES as M } from "../contract/form-rules.js";
import { normalizeDestination } from "./validate.js";

export interface TargetingInput {
  rules?: Rule[] | null;
  split?: Variant[] | null;
  split_goal?: SplitGoal | null;
  split_ends_at?: string | null;
  split_min_visits?: number | null;
}

type SplitColumns = "split_goal" | "split_ends_at" | "split_min_visits" | "split_started_at" | "split_decision";

/** The columns to set (absent: unchanged), and every destination address with its field (for the blocklist). */
export interface CheckedTargeting {
  set: { rules?: string | null; split?: string | null } & { [C in SplitColumns]?: C extends "split_goal" | "split_decision" ? string | null : number | null };
  urls: { field: string; url: string }[];
}

/** An ISO 8601 instant as epoch ms; `field` names it in the error. */
export function instant(raw: string, field: string): number {
  const t = instantOf(raw);
  if (!Number.isFinite(t)) throw invalid(field, M.instant);
  return t;
}

/** A two-letter country code in upper case; `field` names it in the error. */
export function countryCode(raw: string, field: string): string {
  return upperCountry(raw, (message) => {
    throw invalid(field, message);
  });
}

/** One rule's `if`, each kind given checked and normalised by its registry entry (conditions/), in the registry's order. */
function condition(raw: RuleCondition, at: string, checks: FieldChecks): RuleCondition {
  const out: Record<string, unknown> = {};
  const all = raw as Record<string, unknown>;
  for (const kind of CONDITIONS) {
    const given = all[kind.kind];
    if (given === undefined) continue;
    const field = `${at}.if.${kind.kind}`;
    const value = checks.run(() =>
      kind.normalise(
        given,
        (message) => {
          throw invalid(field, message);
        },
        all,
      ),
    );
    if (value !== undefined) out[kind.kind] = value;
  }
  if (Object.keys(raw).length === 0)
    checks.run(() => {
      throw invalid(`${at}.if`, M.noCondition);
    });
  return out as RuleCondition;
}

function rules(raw: Rule[], checks: FieldChecks, ownHost: string, urls: CheckedTargeting["urls"]): Rule[] {
  if (raw.length > MAX_RULES) throw invalid("rules", M.tooManyRules);
  return raw.map((rule, i) => {
    const at = `rules[${i}]`;
    const cond =
      rule?.if && typeof rule.if === "object"
        ? condition(rule.if, at, checks)
        : checks.run(() => {
            throw invalid(`${at}.if`, M.noCondition);
          });
    const url = checks.run(() => normalizeDestination(typeof rule?.url === "string" ? rule.url : "", `${at}.url`, ownHost));
    if (url !== undefined) urls.push({ field: `${at}.url`, url });
    return { if: cond ?? {}, url: url ?? "" };
  });
}

function split(raw: Variant[], checks: FieldChecks, ownHost: string, urls: CheckedTargeting["urls"]): Variant[] {
  if (raw.length < MIN_VARIANTS || raw.length > MAX_VARIANTS) throw invalid("split", M.variants);
  const out = raw.map((v, i) => {
    const url = checks.run(() => normalizeDestination(typeof v?.url === "string" ? v.url : "", `split[${i}].url`, ownHost));
    const weight = checks.run(() => {
      if (!Number.isInteger(v?.weight) || v.weight < 1 || v.weight > 99) throw invalid(`split[${i}].weight`, M.weight);
      return v.weight;
    });
    if (url !== undefined) urls.push({ field: `split[${i}].url`, url });
    return { url: url ?? "", weight: weight ?? 0 };
  });
  if (out.every((v) => v.weight > 0) && out.reduce((s, v) => s + v.weight, 0) !== 100) throw invalid("split", M.weightsSum);
  return out;
}

/**
 * A split's goal and end where given. A new split or goal starts the count again (split_started_at) and forgets
 * the last decision; clearing the split clears its goal and end.
 */
function splitGoal(checks: FieldChecks, input: TargetingInput, plan: string, now: number, set: CheckedTargeting["set"]): void {
  if (input.split_goal !== undefined) {
    const goal = input.split_goal;
    set.split_goal =
      goal === null
        ? null
        : checks.run(() => {
            if (!SPLIT_GOALS.includes(goal)) throw invalid("split_goal", `must be one of ${SPLIT_GOALS.join(", ")}`);
            requireCapability(plan, "link_targeting", "A split's goal");
            return goal;
          });
  }
  if (input.split_ends_at !== undefined) {
    const at = input.split_ends_at;
    set.split_ends_at = at === null ? null : checks.run(() => instant(at, "split_ends_at"));
  }
  if (input.split_min_visits !== undefined) {
    const n = input.split_min_visits;
    set.split_min_visits =
      n === null
        ? null
        : checks.run(() => {
            if (!Number.isInteger(n) || n < 1 || n > MAX_SPLIT_MIN_VISITS)
              throw invalid("split_min_visits", `must be a whole number from 1 to ${MAX_SPLIT_MIN_VISITS}`);
            return n;
          });
  }
  if (set.split === null) Object.assign(set, { split_goal: null, split_ends_at: null, split_min_visits: null, split_started_at: null, split_decision: null });
  else if (set.split !== undefined || set.split_goal !== undefined || set.split_ends_at !== undefined || set.split_min_visits !== undefined) {
    // A later end or another threshold is decided afresh; a new split or goal also counts from now.
    set.split_decision = null;
    if (set.split !== undefined || set.split_goal !== undefined) set.split_started_at = now;
  }
}

/** Checks `rules` and `split` where given (every wrong field noted in `checks`); `plan` is the link owner's. */
export function checkTargeting(checks: FieldChecks, input: TargetingInput, plan: string, ownHost: string, now: number): CheckedTargeting {
  const out: CheckedTargeting = { set: {}, urls: [] };
  if (input.rules !== undefined) {
    const given = input.rules ?? [];
    if (given.length === 0) out.set.rules = null;
    else {
      checks.run(() => requireCapability(plan, "link_targeting", "Redirect rules"));
      const checked = checks.run(() => rules(given, checks, ownHost, out.urls));
      if (checked !== undefined) out.set.rules = JSON.stringify(checked);
    }
  }
  if (input.split !== undefined) {
    const given = input.split ?? [];
    if (given.length === 0) out.set.split = null;
    else {
      checks.run(() => requireCapability(plan, "link_targeting", "A split"));
      const checked = checks.run(() => split(given, checks, ownHost, out.urls));
      if (checked !== undefined) out.set.split = JSON.stringify(checked);
    }
  }
  splitGoal(checks, input, plan, now, out.set);
  return out;
}

/** The stored rules (links.rules), [] when none. */
export function rulesOf(text: string | null): Rule[] {
  return text === null ? [] : (JSON.parse(text) as Rule[]);
}

/** The stored split (links.split), [] when none. */
export function splitOf(text: string | null): Variant[] {
  return text === null ? [] : (JSON.parse(text) as Variant[]);
}
