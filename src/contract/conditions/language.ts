// `language`: the visitor's best Accept-Language entry falls in one of the ranges (fr covers fr-BE).
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, conditionList, orWords, uniqueValues, valuesSchema } from "./kind.js";

const LANGUAGE_RE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/;

/** `fr` covers `fr` and `fr-be`; `fr-be` covers only `fr-be` (and its own subtags). */
function covers(range: string, tag: string): boolean {
  return tag === range || (tag.startsWith(range) && tag.charCodeAt(range.length) === 45);
}

export const languageCondition = defineKind({
  kind: "language",
  label: "Language",
  schema: (t) =>
    valuesSchema(t, "Language ranges (fr, fr-BE) that the visitor's best Accept-Language entry (highest q, then first listed) must fall in; fr covers fr-BE"),
  normalise: (raw, fail) =>
    uniqueValues(
      conditionList(raw, fail).map((l) => {
        if (!LANGUAGE_RE.test(l)) fail(M.language(l));
        return l.toLowerCase();
      }),
    ),
  compile: (ranges) => {
    const lower = ranges.map((x) => x.toLowerCase());
    return (a) => {
      const best = a.language();
      if (best === null) return false;
      // A loop, not a closure per range: asked on every visit.
      for (const range of lower) if (covers(range, best)) return true;
      return false;
    };
  },
  cost: 2,
  words: (ranges) => `language ${orWords(ranges)}`,
  field: { input: "list", placeholder: "fr, de-CH", hint: "The visitor's preferred languages; fr also matches fr-BE.", empty: "Enter at least one language" },
});
