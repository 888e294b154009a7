// The link form's redirect rules and split as typed: drafts of the contract's Rule and Variant, their
// conversion from and to a link, and the checks the browser can make before sending.
import type { Rule, RuleCondition, Variant } from "@contract/targeting";
import { MAX_RULES, MAX_VARIANTS, MIN_VARIANTS } from "@contract/tables";
import { CONDITION_BY_KIND, COND_KINDS, COND_LABELS, DEVICE_LABELS, type CondKind, type FieldSpec } from "@contract/conditions";
import { destinationProblem } from "../../../../src/contract/form-rules";
import { isoToLocalInput, localInputToIso } from "./local-time";

export { COND_KINDS, COND_LABELS, DEVICE_LABELS, type CondKind };

/** A kind's field in the rule editor (contract/conditions/): what input it is, its options and words. */
export const fieldOf = (kind: CondKind): FieldSpec => CONDITION_BY_KIND[kind].field;

export interface QueryPair {
  name: string;
  value: string;
}

/** One condition as typed: `text` for a list field, `choices` ticked, `pairs` for parameters, `at` (datetime-local). */
export interface CondDraft {
  kind: CondKind;
  text: string;
  choices: string[];
  pairs: QueryPair[];
  at: string;
}

export interface RuleDraft {
  /** A stable React key: rules move. */
  key: string;
  url: string;
  when: CondDraft[];
}

export interface VariantDraft {
  url: string;
  weight: string;
}

let keys = 0;
const newKey = () => `r${++keys}`;

export function newCondition(kind: CondKind): CondDraft {
  return { kind, text: "", choices: [], pairs: fieldOf(kind).input === "pairs" ? [{ name: "", value: "" }] : [], at: "" };
}

export function newRule(): RuleDraft {
  return { key: newKey(), url: "", when: [newCondition("country")] };
}

/** Letters of each variant as the dashboard names it: Variant A is the split's first. */
export const variantLetter = (i: number) => String.fromCharCode(65 + i);

/** A new split: two variants, half and half; the first goes to the link's own destination. */
export function newSplit(url: string): VariantDraft[] {
  return [
    { url: url.trim(), weight: "50" },
    { url: "", weight: "50" },
  ];
}

const splitList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function draftOf(rule: Rule): RuleDraft {
  const when: CondDraft[] = [];
  const c = rule.if as Record<string, unknown>;
  for (const kind of COND_KINDS) {
    const value = c[kind];
    if (value === undefined) continue;
    const d = newCondition(kind);
    const input = fieldOf(kind).input;
    if (input === "choices") d.choices = [...(value as string[])];
    else if (input === "pairs") d.pairs = Object.entries(value as Record<string, string>).map(([name, v]) => ({ name, value: v }));
    else if (input === "datetime") d.at = isoToLocalInput(value as string);
    else d.text = (value as string[]).join(", ");
    when.push(d);
  }
  return { key: newKey(), url: rule.url, when };
}

export const rulesFromLink = (rules: Rule[]): RuleDraft[] => rules.map(draftOf);
export const splitFromLink = (split: Variant[]): VariantDraft[] => split.map((v) => ({ url: v.url, weight: String(v.weight) }));

function valueOf(d: CondDraft): unknown {
  const field = fieldOf(d.kind);
  if (field.input === "choices") return field.options.map((o) => o.value).filter((x) => d.choices.includes(x));
  if (field.input === "pairs") return Object.fromEntries(d.pairs.filter((p) => p.name.trim()).map((p) => [p.name.trim(), p.value.trim()]));
  if (field.input === "datetime") return localInputToIso(d.at) ?? d.at;
  const list = splitList(d.text);
  return field.upper ? list.map((s) => s.toUpperCase()) : list;
}

function conditionOf(when: CondDraft[]): RuleCondition {
  return Object.fromEntries(when.map((d) => [d.kind, valueOf(d)])) as RuleCondition;
}

export function rulesBody(drafts: RuleDraft[]): Rule[] {
  return drafts.map((r) => ({ if: conditionOf(r.when), url: r.url.trim() }));
}

export function splitBody(drafts: VariantDraft[]): Variant[] {
  return drafts.map((v) => ({ url: v.url.trim(), weight: Number(v.weight) }));
}

/** The weights as numbers (NaN for what is not a whole number) and their sum. */
export function weightSum(drafts: VariantDraft[]): number {
  return drafts.reduce((n, v) => n + (/^\d+$/.test(v.weight.trim()) ? Number(v.weight) : 0), 0);
}

function conditionProblem(d: CondDraft): string | null {
  const field = fieldOf(d.kind);
  if (field.input === "choices") return d.choices.length ? null : field.empty;
  if (field.input === "pairs") return d.pairs.some((p) => p.name.trim()) ? null : field.empty;
  if (field.input === "datetime") return localInputToIso(d.at) ? null : field.empty;
  const list = splitList(d.text);
  if (!list.length) return field.empty;
  if (field.pattern && list.some((s) => !new RegExp(field.pattern!).test(s))) return field.patternMessage ?? field.empty;
  return null;
}

/** A datetime condition that must come after another's time (`before` after `after`), with its words. */
function orderProblem(d: CondDraft, when: CondDraft[]): string | null {
  const field = fieldOf(d.kind);
  if (field.input !== "datetime" || !field.laterThan) return null;
  const first = when.find((x) => x.kind === field.laterThan!.kind);
  return first && localInputToIso(first.at) && localInputToIso(d.at) && first.at >= d.at ? field.laterThan.message : null;
}

/** Field keys as the server names them: `rules[0].if.country`, `split[1].weight`, `split`. */
export function targetingProblems(rules: RuleDraft[], split: VariantDraft[]): Record<string, string> {
  const fe: Record<string, string> = {};
  if (rules.length > MAX_RULES) fe.rules = `Use at most ${MAX_RULES} rules`;
  rules.forEach((r, i) => {
    const url = destinationProblem(r.url);
    if (url) fe[`rules[${i}].url`] = url;
    if (!r.when.length) fe[`rules[${i}].if`] = "Add at least one condition";
    for (const d of r.when) {
      const p = conditionProblem(d) ?? orderProblem(d, r.when);
      if (p) fe[`rules[${i}].if.${d.kind}`] = p;
    }
  });
  if (split.length === 0) return fe;
  if (split.length < MIN_VARIANTS || split.length > MAX_VARIANTS) fe.split = `A split has ${MIN_VARIANTS} to ${MAX_VARIANTS} variants`;
  split.forEach((v, i) => {
    const url = destinationProblem(v.url);
    if (url) fe[`split[${i}].url`] = url;
    if (!/^\d+$/.test(v.weight.trim()) || Number(v.weight) < 1 || Number(v.weight) > 99) fe[`split[${i}].weight`] = "A whole number from 1 to 99";
  });
  const sum = weightSum(split);
  // Said by the split's live sum, not under a field: the key only keeps the form from being sent.
  if (!fe.split && sum !== 100) fe["split.sum"] = `The weights add up to ${sum}%: make them add up to 100%`;
  return fe;
}

/** Every key a server error on the rules or the split may carry, so the form shows it at its field. */
export function targetingFields(): string[] {
  const out = ["rules", "split"];
  for (let i = 0; i < MAX_RULES + 1; i++) {
    out.push(`rules[${i}]`, `rules[${i}].url`, `rules[${i}].if`, ...COND_KINDS.map((k) => `rules[${i}].if.${k}`));
    if (i <= MAX_VARIANTS) out.push(`split[${i}]`, `split[${i}].url`, `split[${i}].weight`);
  }
  return out;
}

/** A rule's or variant's errors not tied to one field of it (`rules[2]`, `rules[2].if`). */
export const ruleError = (errors: Record<string, string>, i: number) => errors[`rules[${i}]`] ?? errors[`rules[${i}].if`];

export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
