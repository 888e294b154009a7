// What one redirect condition kind is (docs/api.md, Redirect rules; README.md here): its contract schema,
// the check and normal form of its value, its matcher, its words and the dashboard's field for it. This folder
// imports nothing at run time (type imports only), so the dashboard reads the same entries as the server.
import type { Static, TSchema } from "typebox";
import type * as TypeBuilder from "typebox";
import { TARGETING_MESSAGES as M } from "../form-rules.js";

/** Alternatives in one condition's list, and names in one `query` condition. */
export const MAX_RULE_VALUES = 50;
export const MAX_QUERY_NAMES = 10;

/**
 * What a matcher may ask about a visit; each answer is worked out at most once per visit and only when a rule
 * asks (src/redirect/targeting.ts implements it, and "Test a visit" fills it from the resolve query).
 */
export interface VisitAsk {
  /** The visit's instant, epoch ms. */
  readonly at: number;
  /** The raw visit, for a kind that needs what no method below works out. */
  readonly facts: { readonly userAgent: string; readonly referer: string; readonly query: string; readonly acceptLanguage: string; readonly ip: string };
  /** The best Accept-Language entry (highest q, then first listed) in lower case, or null. */
  language(): string | null;
  /** "ios" or "android" when the user agent is one, else null. */
  platform(): string | null;
  /** The agent's device class as the statistics name it (mobile, tablet, desktop, bot...). */
  device(): string;
  /** The agent's OS and browser names in lower case. */
  osName(): string;
  browserName(): string;
  /** A query parameter of the short URL, or null when absent. */
  param(name: string): string | null;
  /** The referring page's host without "www.", "" when none. */
  referrer(): string;
  /** The visitor's country code in upper case, or null when unknown (may look the address up: asked last). */
  country(): string | null;
}

/** Throws the field's error with this message (the caller names the field: `rules[2].if.country`). */
export type Fail = (message: string) => never;

/** The dashboard's field for a kind, described without code: web/src/links/form/ renders one input per `input`. */
export type FieldSpec = (
  | { input: "list"; placeholder: string; upper?: boolean; pattern?: string; patternMessage?: string }
  | { input: "choices"; options: readonly { value: string; label: string }[]; groupLabel: string }
  | { input: "pairs" }
  | { input: "datetime"; laterThan?: { kind: string; message: string } }
) & {
  hint?: string;
  /** What the form says before sending when the field is left empty. */
  empty: string;
  /** Warn beside the field when this server cannot tell visitors' countries. */
  needsCountrySource?: boolean;
};

/** One condition kind; `S` is its schema, and a rule's `if.<kind>` holds a value of `Static<S>`. */
export interface ConditionKind<K extends string, S extends TSchema> {
  kind: K;
  label: string;
  /** The contract's schema (sizes only stop absurd payloads; `normalise` holds the real rule). */
  schema: (t: typeof TypeBuilder.Type) => S;
  /** The value checked and in its stored form; `all` is the rule's whole condition as given. */
  normalise: (raw: unknown, fail: Fail, all: Record<string, unknown>) => Static<S>;
  /** Made once per link when the cache fills: the test every visit passes through (no allocation in it). */
  compile: (value: Static<S>) => (visit: VisitAsk) => boolean;
  /** Matchers run cheap first: 0 the visit's time, 1 the query string or a header, 2 the parsed agent or languages, 3 the country. */
  cost: 0 | 1 | 2 | 3;
  /** The value in words ("country FR or BE"); `time` writes an instant. */
  words: (value: Static<S>, time: (iso: string) => string) => string;
  field: FieldSpec;
}

/** Ties a kind's parts to one schema type. */
export const defineKind = <K extends string, S extends TSchema>(kind: ConditionKind<K, S>) => kind;

/** A list of alternatives, trimmed: not empty, at most `max`. */
export function conditionList(values: unknown, fail: Fail, max = MAX_RULE_VALUES): string[] {
  if (!Array.isArray(values) || values.length === 0) fail(M.listEmpty);
  if (values.length > max) fail(M.listLong(max));
  return values.map((v) => (typeof v === "string" ? v.trim() : ""));
}

/** Distinct values, first spelling kept. */
export const uniqueValues = (values: string[]): string[] => [...new Set(values)];

/** The contract's schema of a list of alternatives. */
export const valuesSchema = (t: typeof TypeBuilder.Type, description: string) =>
  t.Array(t.String({ maxLength: 300 }), { maxItems: 500, description: `${description}; at most ${MAX_RULE_VALUES}` });

export const orWords = (v: readonly string[]) => v.join(" or ");

/** An ISO 8601 instant as epoch ms, NaN when it is not one. */
export function instantOf(raw: string): number {
  return /^\d{4}-\d{2}-\d{2}T/.test(raw.trim()) ? Date.parse(raw.trim()) : NaN;
}
