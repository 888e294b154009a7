// `query`: every named parameter of the short URL is present with its value (`*`: any value).
import { TARGETING_MESSAGES as M } from "../form-rules.js";
import { defineKind, MAX_QUERY_NAMES } from "./kind.js";

export const queryCondition = defineKind({
  kind: "query",
  label: "Query parameters",
  schema: (t) =>
    t.Record(t.String({ maxLength: 300 }), t.String({ maxLength: 2000 }), {
      description: "Query parameters of the short URL: {name: value}, `*` for any value; every one must hold",
    }),
  normalise: (raw, fail) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) fail(M.query);
    const entries = Object.entries(raw as Record<string, unknown>);
    if (entries.length === 0) fail(M.listEmpty);
    if (entries.length > MAX_QUERY_NAMES) fail(M.listLong(MAX_QUERY_NAMES));
    const out: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (name.trim() === "" || typeof value !== "string" || /[\u0000-\u001f\u007f]/.test(name + value)) fail(M.query);
      out[name.trim()] = value as string;
    }
    return out;
  },
  compile: (wanted) => {
    const pairs = Object.entries(wanted);
    return (a) => {
      for (const [name, want] of pairs) {
        const got = a.param(name);
        if (got === null || (want !== "*" && got !== want)) return false;
      }
      return true;
    };
  },
  cost: 1,
  words: (wanted) =>
    `query ${Object.entries(wanted)
      .map(([k, v]) => (v === "*" ? `${k} present` : `${k}=${v}`))
      .join(" and ")}`,
  field: { input: "pairs", empty: "Enter a parameter name (and a value, or * for any value)" },
});
