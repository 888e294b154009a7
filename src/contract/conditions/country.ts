// `country`: the visitor's country (GEOIP_DB or the trusted country header) is one of the codes.
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, conditionList, orWords, uniqueValues, valuesSchema, type Fail } from "./kind.js";

const COUNTRY_RE = /^[A-Za-z]{2}$/;

/** A two-letter country code in upper case. */
export function countryCode(raw: string, fail: Fail): string {
  if (!COUNTRY_RE.test(raw)) fail(M.country(raw));
  return raw.toUpperCase();
}

export const countryCondition = defineKind({
  kind: "country",
  label: "Country",
  schema: (t) => valuesSchema(t, "ISO 3166-1 alpha-2 codes (FR, US...): from GEOIP_DB or the trusted country header"),
  normalise: (raw, fail) => uniqueValues(conditionList(raw, fail).map((c) => countryCode(c, fail))),
  compile: (codes) => {
    const set = new Set(codes.map((x) => x.toUpperCase()));
    return (a) => {
      const c = a.country();
      return c !== null && set.has(c);
    };
  },
  cost: 3,
  words: (codes) => `country ${orWords(codes)}`,
  field: {
    input: "list",
    placeholder: "FR, BE, CH",
    upper: true,
    pattern: "^[A-Za-z]{2}$",
    patternMessage: "Use two-letter country codes such as FR, US",
    hint: "Two-letter codes; any of them.",
    empty: "Enter at least one country",
    needsCountrySource: true,
  },
});
