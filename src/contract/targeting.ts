// Redirect rules and weighted splits (docs/api.md, Redirect rules): the shapes of a link's `rules` and
// `split`, the destination codes a click records, and the answer of `GET /api/links/{id}/resolve`.
import { Type, type Static, type TOptional } from "typebox";
import { Body, Nullable, StringEnum } from "./common.js";

import { DEVICES, MAX_RULES, MAX_SPLIT_MIN_VISITS, MAX_VARIANTS, MIN_VARIANTS, SPLIT_GOALS } from "./tables.js";
import { CONDITIONS, MAX_QUERY_NAMES, MAX_RULE_VALUES, type CondKind, type RuleDevice } from "./conditions/index.js";

export { DEVICES, MAX_QUERY_NAMES, MAX_RULES, MAX_RULE_VALUES, MAX_VARIANTS, MIN_VARIANTS, type CondKind, type RuleDevice };
/** How long a visitor keeps their variant of a split (the per-link cookie's Max-Age). */
export const SPLIT_COOKIE_DAYS = 30;

// Sizes here only stop absurd payloads early: links/link-targeting.ts applies each kind's real rule
// (conditions/) and names the wrong field (`rules[2].if.country`) in the user's words.
const Url = Type.String({ maxLength: 8192 });

type Entry = (typeof CONDITIONS)[number];
const conditionProperties = Object.fromEntries(CONDITIONS.map((k) => [k.kind, Type.Optional(k.schema(Type))])) as {
  [E in Entry as E["kind"]]: TOptional<ReturnType<E["schema"]>>;
};

/** What must hold for a rule to send a visitor to its `url`: every condition given (values in one list are alternatives). */
export const RuleConditionSchema = Body(conditionProperties);
export type RuleCondition = Static<typeof RuleConditionSchema>;

export const RuleSchema = Body({ if: RuleConditionSchema, url: Url });
export type Rule = Static<typeof RuleSchema>;

export const VariantSchema = Body({ url: Url, weight: Type.Integer({ description: "Percent, 1 to 99; a split's weights add up to 100" }) });
export type Variant = Static<typeof VariantSchema>;

// The goals and the visits' bound live in tables.ts (the dashboard imports them at run time).
export { MAX_SPLIT_MIN_VISITS, SPLIT_GOALS };
export type SplitGoal = (typeof SPLIT_GOALS)[number];

const SplitGoalSchema = StringEnum(SPLIT_GOALS, "clicks, leads, sales or revenue: what the split's end compares (Business plan and above)");

/** The decision taken at a split's end (absent while it runs). */
export const SplitDecisionSchema = Type.Object({
  at: Type.String(),
  result: Type.Union([Type.Literal("winner"), Type.Literal("no_clear_winner")]),
  goal: SplitGoalSchema,
  winner: Nullable(Type.String({ description: "variant:N, the variant made the link's destination" })),
  url: Nullable(Type.String({ description: "The winner's address (now the link's url)" })),
  summary: Type.String(),
});
export type SplitDecision = Static<typeof SplitDecisionSchema>;

/** On create and edit: `rules: []` or null clears the rules, `split: []` or null the split. */
export const TargetingFields = {
  split_goal: Type.Optional(Nullable(SplitGoalSchema)),
  split_ends_at: Type.Optional(Nullable(Type.String({ maxLength: 100, description: "ISO 8601 instant: the split ends then" }))),
  split_min_visits: Type.Optional(
    Nullable(Type.Integer({ description: `The split ends once every variant has this many visits (1 to ${MAX_SPLIT_MIN_VISITS})` })),
  ),
  rules: Type.Optional(Type.Union([Type.Array(RuleSchema, { maxItems: 200, description: `At most ${MAX_RULES}; the first that holds decides` }), Type.Null()])),
  split: Type.Optional(Type.Union([Type.Array(VariantSchema, { maxItems: 40, description: `${MIN_VARIANTS} to ${MAX_VARIANTS} variants` }), Type.Null()])),
};

/** On the link object: always present, empty when unused. */
export const LinkTargetingProperties = {
  rules: Type.Array(RuleSchema, { description: "Redirect rules in order; the first that holds decides (Business plan and above)" }),
  split: Type.Array(VariantSchema, { description: "A weighted split of the default destination, empty when none (Business plan and above)" }),
  split_goal: Nullable(SplitGoalSchema),
  split_ends_at: Nullable(Type.String()),
  split_min_visits: Nullable(Type.Integer()),
  split_decision: Nullable(SplitDecisionSchema),
};

/**
 * Where a visit went, as clicks record it: `default` (the link's url), `rule:N` (N from 1), `ios`, `android`
 * (SPEC.md's device destinations), `variant:N` (a split's variant, N from 1).
 */
export const DESTINATION_PATTERN = "^(default|ios|android|rule:([1-9]|1[0-9]|20)|variant:[1-4])$";
export type DestinationCode = "default" | "ios" | "android" | `rule:${number}` | `variant:${number}`;

export const ResolveQuery = Type.Object(
  {
    country: Type.Optional(Type.String({ maxLength: 2, description: "ISO 3166-1 alpha-2 code of the visitor's country" })),
    language: Type.Optional(Type.String({ maxLength: 500, description: "An Accept-Language value (fr-BE,fr;q=0.9,en;q=0.5)" })),
    ua: Type.Optional(Type.String({ maxLength: 1024, description: "The visitor's User-Agent" })),
    query: Type.Optional(Type.String({ maxLength: 2048, description: "The short URL's query string (utm_source=x&lang=fr)" })),
    referrer: Type.Optional(Type.String({ maxLength: 2048, description: "The referring page's URL" })),
    at: Type.Optional(Type.String({ maxLength: 100, description: "ISO 8601 instant of the visit; default now" })),
  },
  { additionalProperties: false },
);
export type ResolveParams = Static<typeof ResolveQuery>;

export const ResolveReply = Type.Object({
  status: Type.Literal("success"),
  destination: Type.String({ description: "default, rule:N, ios, android or variant:N: what the click would record" }),
  url: Type.String({ description: "Where the visitor would be sent" }),
  reason: Type.String({ description: "Why, in a sentence" }),
  rule: Type.Union([Type.Integer(), Type.Null()], { description: "The rule that held (from 1), or null" }),
  variants: Type.Array(Type.Object({ destination: Type.String(), url: Type.String(), weight: Type.Integer() }), {
    description: "When the split decides: every variant (a real visitor keeps the one first given for 30 days)",
  }),
  country_source: Type.Union([Type.Literal("geoip"), Type.Literal("header"), Type.Literal("both"), Type.Null()], {
    description: "Where a visitor's country comes from on this server; null: rules with `country` never hold",
  }),
});
export type ResolveReply = Static<typeof ResolveReply>;
/** Where this server learns a visitor's country, for the rule editor's word beside a Country condition. */
export const CountrySourceReply = Type.Object({ status: Type.Literal("success"), country_source: ResolveReply.properties.country_source });
