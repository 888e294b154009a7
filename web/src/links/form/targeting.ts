// The link form's redirect rules and split as typed: drafts of the contract's Rule and Variant, their
// conversion from and to a link, and the checks the browser can make before sending.
import type { Rule, RuleCondition, RuleDevice, Variant } from "@contract/targeting";
import { DEVICES, MAX_RULES, MAX_VARIANTS, MIN_VARIANTS } from "@contract/tables";
import { destinationProblem } from "../../../../src/contract/form-rules";
import { isoToLocalInput, localInputToIso } from "./local-time";

export const DEVICE_LABELS: Record<RuleDevice, string> = { ios: "iOS", android: "Android", mobile: "Mobile", tablet: "Tablet", desktop: "Desktop", bot: "Bot" };

/** Conditions typed as one line of alternatives (commas or spaces between them). */
export const LIST_KINDS = ["country", "language", "os", "browser", "referrer_host"] as const;
type ListKind = (typeof LIST_KINDS)[number];
export type CondKind = ListKind | "device" | "query" | "after" | "before";
export const COND_KINDS: CondKind[] = ["country", "language", "device", "os", "browser", "query", "referrer_host", "after", "before"];

export const COND_LABELS: Record<CondKind, string> = {
  country: "Country",
  language: "Language",
  device: "Device",
  os: "Operating system",
  browser: "Browser",
  query: "Query parameters",
  referrer_host: "Referrer host",
  after: "From (date and time)",
  before: "Until (date and time)",
};

export interface QueryPair {
  name: string;
  value: string;
}

/** One condition as typed: `text` for the list kinds, `at` (datetime-local) for after/before. */
export interface CondDraft {
  kind: CondKind;
  text: string;
  devices: RuleDevice[];
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
  return { kind, text: "", devices: [], pairs: kind === "query" ? [{ name: "", value: "" }] : [], at: "" };
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
  const c = rule.if;
  for (const kind of COND_KINDS) {
    if (c[kind] === undefined) continue;
    const d = newCondition(kind);
    if (kind === "device") d.devices = [...(c.device ?? [])];
    else if (kind === "query") d.pairs = Object.entries(c.query ?? {}).map(([name, value]) => ({ name, value }));
    else if (kind === "after" || kind === "before") d.at = isoToLocalInput(c[kind] ?? null);
    else d.text = (c[kind] ?? []).join(", ");
    when.push(d);
  }
  return { key: newKey(), url: rule.url, when };
}

export const rulesFromLink = (rules: Rule[]): RuleDraft[] => rules.map(draftOf);
export const splitFromLink = (split: Variant[]): VariantDraft[] => split.map((v) => ({ url: v.url, weight: String(v.weight) }));

function conditionOf(when: CondDraft[]): RuleCondition {
  const c: RuleCondition = {};
  for (const d of when) {
    if (d.kind === "device") c.device = DEVICES.filter((x) => d.devices.includes(x));
    else if (d.kind === "query") c.query = Object.fromEntries(d.pairs.filter((p) => p.name.trim()).map((p) => [p.name.trim(), p.value.trim()]));
    else if (d.kind === "after" || d.kind === "before") c[d.kind] = localInputToIso(d.at) ?? d.at;
    else {
      const list = splitList(d.text);
      c[d.kind] = d.kind === "country" ? list.map((s) => s.toUpperCase()) : list;
    }
  }
  return c;
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
  if (d.kind === "device") return d.devices.length ? null : "Tick at least one device";
  if (d.kind === "query") {
    const named = d.pairs.filter((p) => p.name.trim());
    return named.length ? null : "Enter a parameter name (and a value, or * for any value)";
  }
  if (d.kind === "after" || d.kind === "before") return localInputToIso(d.at) ? null : "Enter a date and time";
  const list = splitList(d.text);
  if (!list.length) return `Enter at least one ${d.kind === "referrer_host" ? "host" : COND_LABELS[d.kind].toLowerCase()}`;
  if (d.kind === "country" && list.some((s) => !/^[A-Za-z]{2}$/.test(s))) return "Use two-letter country codes such as FR, US";
  return null;
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
      const p = conditionProblem(d);
      if (p) fe[`rules[${i}].if.${d.kind}`] = p;
    }
    const after = r.when.find((d) => d.kind === "after");
    const before = r.when.find((d) => d.kind === "before");
    if (after && before && localInputToIso(after.at) && localInputToIso(before.at) && after.at >= before.at) fe[`rules[${i}].if.before`] = "Choose a time after the “From” time";
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
