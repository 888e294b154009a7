// `after` and `before`: the visit's instant is from `after` on, and before `before`.
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, instantOf } from "./kind.js";

function instant(raw: unknown, fail: (message: string) => never): number {
  const t = typeof raw === "string" ? instantOf(raw) : NaN;
  if (!Number.isFinite(t)) fail(M.instant);
  return t;
}

export const afterCondition = defineKind({
  kind: "after",
  label: "From (date and time)",
  schema: (t) => t.String({ maxLength: 100, description: "ISO 8601 instant: the rule holds from then on" }),
  normalise: (raw, fail) => new Date(instant(raw, fail)).toISOString(),
  compile: (iso) => {
    const from = Date.parse(iso);
    return (a) => !(a.at < from);
  },
  cost: 0,
  words: (iso, time) => `from ${time(iso)}`,
  field: { input: "datetime", hint: "Your time zone.", empty: "Enter a date and time" },
});

export const beforeCondition = defineKind({
  kind: "before",
  label: "Until (date and time)",
  schema: (t) => t.String({ maxLength: 100, description: "ISO 8601 instant: the rule holds until then" }),
  normalise: (raw, fail, all) => {
    const until = instant(raw, fail);
    const from = typeof all.after === "string" ? instantOf(all.after) : NaN;
    if (Number.isFinite(from) && from >= until) fail(M.beforeAfter);
    return new Date(until).toISOString();
  },
  compile: (iso) => {
    const until = Date.parse(iso);
    return (a) => !(a.at >= until);
  },
  cost: 0,
  words: (iso, time) => `until ${time(iso)}`,
  field: {
    input: "datetime",
    hint: "Your time zone.",
    empty: "Enter a date and time",
    laterThan: { kind: "after", message: "Choose a time after the “From” time" },
  },
});
