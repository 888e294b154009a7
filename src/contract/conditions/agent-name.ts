// `os` and `browser`: the visitor's agent names one of them, as the statistics name them, ignoring case.
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, conditionList, orWords, uniqueValues, valuesSchema, type VisitAsk } from "./kind.js";

const NAME_RE = /^[^\u0000-\u001f\u007f]{1,40}$/;

function agentName<K extends string>(kind: K, label: string, word: string, description: string, placeholder: string, name: (a: VisitAsk) => string) {
  return defineKind({
    kind,
    label,
    schema: (t) => valuesSchema(t, description),
    normalise: (raw, fail) =>
      uniqueValues(
        conditionList(raw, fail).map((n) => {
          if (!NAME_RE.test(n)) fail(M.name);
          return n;
        }),
      ),
    compile: (names) => {
      const set = new Set(names.map((x) => x.toLowerCase()));
      return (a) => set.has(name(a));
    },
    cost: 2,
    words: (names) => `${word} ${orWords(names)}`,
    field: { input: "list", placeholder, empty: `Enter at least one ${label.toLowerCase()}` },
  });
}

export const osCondition = agentName(
  "os",
  "Operating system",
  "OS",
  "Operating system names as the statistics name them (iOS, Android, Windows, macOS, Linux...), ignoring case",
  "iOS, Android, Windows",
  (a) => a.osName(),
);

export const browserCondition = agentName(
  "browser",
  "Browser",
  "browser",
  "Browser names as the statistics name them (Chrome, Safari, Firefox, Edge...), ignoring case",
  "Chrome, Firefox",
  (a) => a.browserName(),
);
