// The redirect condition kinds, one entry each (README.md here, with the files adding one touches): the
// contract's `RuleCondition`, the server's checks and matchers, the words of the API and the dashboard, and the
// rule editor's fields are all read from this list. Its order is the order of a rule's keys, of its words and of
// the editor's menu. Run-time imports of this folder stay inside it and the dependency-free contract modules
// (the dashboard imports it).
import type { Static } from "typebox";
import { afterCondition, beforeCondition } from "./time.js";
import { browserCondition, osCondition } from "./agent-name.js";
import { countryCondition } from "./country.js";
import { deviceCondition } from "./device.js";
import { languageCondition } from "./language.js";
import { queryCondition } from "./query.js";
import { referrerHostCondition } from "./referrer-host.js";

export const CONDITIONS = [
  countryCondition,
  languageCondition,
  deviceCondition,
  osCondition,
  browserCondition,
  queryCondition,
  referrerHostCondition,
  afterCondition,
  beforeCondition,
] as const;

type Entry = (typeof CONDITIONS)[number];
export type CondKind = Entry["kind"];
/** A rule's condition: each kind's value, every one given must hold. */
export type ConditionValues = { [E in Entry as E["kind"]]?: Static<ReturnType<E["schema"]>> };

export const COND_KINDS: readonly CondKind[] = CONDITIONS.map((k) => k.kind);
export const COND_LABELS = Object.fromEntries(CONDITIONS.map((k) => [k.kind, k.label])) as Record<CondKind, string>;
export const CONDITION_BY_KIND = Object.fromEntries(CONDITIONS.map((k) => [k.kind, k])) as { [E in Entry as E["kind"]]: E };

/** The kinds in the order matchers run: cheap first, the country (perhaps a lookup) last. */
export const CONDITIONS_BY_COST: readonly Entry[] = [...CONDITIONS].sort((a, b) => a.cost - b.cost);

/** A condition in words, kinds in the registry's order: "country FR or BE, language fr"; `time` writes an instant. */
export function conditionWords(c: ConditionValues, time: (iso: string) => string): string {
  const parts: string[] = [];
  for (const k of CONDITIONS) {
    const value = c[k.kind];
    if (value !== undefined) parts.push((k.words as (v: unknown, t: typeof time) => string)(value, time));
  }
  return parts.join(", ");
}

export { DEVICE_LABELS, type RuleDevice } from "./device.js";
export { MAX_QUERY_NAMES, MAX_RULE_VALUES, type ConditionKind, type FieldSpec, type VisitAsk } from "./kind.js";
