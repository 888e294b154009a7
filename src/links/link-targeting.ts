// A link's redirect rules and weighted split (docs/api.md, Redirect rules), checked for creation, edits,
// bulk rows and the external API alike, and stored as JSON text (links.rules, links.split). Every wrong
// field is named (`rules[2].if.country`); rules and splits follow the owner's plan (Business and above).
import { invalid, type FieldChecks } from "../shared/errors.js";
import { requireCapability } from "../accounts/plans.js";
import {
  DEVICES,
  MAX_QUERY_NAMES,
  MAX_RULES,
  MAX_RULE_VALUES,
  MAX_VARIANTS,
  MIN_VARIANTS,
  type Rule,
  type RuleCondition,
  type RuleDevice,
  type Variant,
} from "../contract/targeting.js";
import { TARGETING_MESSAGES as M } from "../contract/form-rules.js";
import { normalizeDestination } from "./validate.js";

export interface TargetingInput {
  rules?: Rule[] | null;
  split?: Variant[] | null;
}

/** The columns to set (absent: unchanged), and every destination address with its field (for the blocklist). */
export interface CheckedTargeting {
  set: { rules?: string | null; split?: string | null };
  urls: { field: string; url: string }[];
}

const COUNTRY_RE = /^[A-Za-z]{2}$/;
const LANGUAGE_RE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/;
const NAME_RE = /^[^\u0000-\u001f\u007f]{1,40}$/;
const HOST_RE = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function list(values: unknown, field: string, max = MAX_RULE_VALUES): string[] {
  if (!Array.isArray(values) || values.length === 0) throw invalid(field, M.listEmpty);
  if (values.length > max) throw invalid(field, M.listLong(max));
  return values.map((v) => (typeof v === "string" ? v.trim() : ""));
}

/** Distinct values, first spelling kept. */
function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** An ISO 8601 instant as epoch ms; `field` names it in the error. */
export function instant(raw: string, field: string): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(raw.trim()) ? Date.parse(raw.trim()) : NaN;
  if (!Number.isFinite(t)) throw invalid(field, M.instant);
  return t;
}

/** One rule's `if`, normalised: codes in upper case, languages and hosts in lower case, instants as ISO text. */
function condition(raw: RuleCondition, at: string, checks: FieldChecks): RuleCondition {
  const out: RuleCondition = {};
  const f = (name: string) => `${at}.if.${name}`;
  if (raw.country !== undefined)
    out.country = checks.run(() => unique(list(raw.country, f("country")).map((c) => countryCode(c, f("country")))));
  if (raw.language !== undefined)
    out.language = checks.run(() => unique(list(raw.language, f("language")).map((l) => {
      if (!LANGUAGE_RE.test(l)) throw invalid(f("language"), M.language(l));
      return l.toLowerCase();
    })));
  if (raw.device !== undefined)
    out.device = checks.run(() => unique(list(raw.device, f("device"), DEVICES.length).map((d) => {
      if (!(DEVICES as readonly string[]).includes(d)) throw invalid(f("device"), M.device);
      return d;
    })) as RuleDevice[]);
  for (const key of ["os", "browser"] as const) {
    if (raw[key] !== undefined)
      out[key] = checks.run(() => unique(list(raw[key], f(key)).map((n) => {
        if (!NAME_RE.test(n)) throw invalid(f(key), M.name);
        return n;
      })));
  }
  if (raw.query !== undefined) out.query = checks.run(() => query(raw.query, f("query")));
  if (raw.referrer_host !== undefined)
    out.referrer_host = checks.run(() => unique(list(raw.referrer_host, f("referrer_host")).map((h) => {
      const host = h.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
      if (!HOST_RE.test(host)) throw invalid(f("referrer_host"), M.host(h));
      return host;
    })));
  const after = raw.after === undefined ? undefined : checks.run(() => instant(raw.after!, f("after")));
  const before = raw.before === undefined ? undefined : checks.run(() => instant(raw.before!, f("before")));
  if (after !== undefined) out.after = new Date(after).toISOString();
  if (before !== undefined) out.before = new Date(before).toISOString();
  if (after !== undefined && before !== undefined && after >= before) checks.run(() => { throw invalid(f("before"), M.beforeAfter); });
  if (Object.keys(raw).length === 0) checks.run(() => { throw invalid(`${at}.if`, M.noCondition); });
  return out;
}

/** A two-letter country code in upper case; `field` names it in the error. */
export function countryCode(raw: string, field: string): string {
  if (!COUNTRY_RE.test(raw)) throw invalid(field, M.country(raw));
  return raw.toUpperCase();
}

function query(raw: unknown, field: string): Record<string, string> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw invalid(field, M.query);
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0) throw invalid(field, M.listEmpty);
  if (entries.length > MAX_QUERY_NAMES) throw invalid(field, M.listLong(MAX_QUERY_NAMES));
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (name.trim() === "" || typeof value !== "string" || /[\u0000-\u001f\u007f]/.test(name + value)) throw invalid(field, M.query);
    out[name.trim()] = value;
  }
  return out;
}

function rules(raw: Rule[], checks: FieldChecks, ownHost: string, urls: CheckedTargeting["urls"]): Rule[] {
  if (raw.length > MAX_RULES) throw invalid("rules", M.tooManyRules);
  return raw.map((rule, i) => {
    const at = `rules[${i}]`;
    const cond = rule?.if && typeof rule.if === "object" ? condition(rule.if, at, checks) : checks.run(() => { throw invalid(`${at}.if`, M.noCondition); });
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

/** Checks `rules` and `split` where given (every wrong field noted in `checks`); `plan` is the link owner's. */
export function checkTargeting(checks: FieldChecks, input: TargetingInput, plan: string, ownHost: string): CheckedTargeting {
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
