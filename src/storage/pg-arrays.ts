// PostgreSQL array literals, sent as one text parameter cast to text[] or bigint[]: the click writer's unnest() and
// = ANY() parameters (clicks/pg-writer.ts, clicks/visitors.ts, the tracked-clicks listener). node-postgres
// converts a JavaScript array itself, but element by element through two regular expressions and a string built piece
// by piece: a sixth of the writer's JavaScript on a Zipf batch (bench:clicks --pg, a --cpu-prof).

/** A value of an array element: null is NULL. */
export type ArrayValue = string | number | null | undefined;

const QUOTE_OR_BACKSLASH = /["\\]/;
const QUOTES_AND_BACKSLASHES = /["\\]/g;

/** One element: a string double-quoted (its quotes and backslashes escaped), a number as written, null as NULL. */
function element(v: ArrayValue): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "number") return String(v);
  return QUOTE_OR_BACKSLASH.test(v) ? `"${v.replace(QUOTES_AND_BACKSLASHES, "\\$&")}"` : `"${v}"`;
}

/**
 * The array literal of `values` ("{...}"), for a parameter cast to an array type. All numbers, or all strings with
 * neither a quote nor a backslash (the writer's columns): joined in one native call, no string made per element.
 */
export function arrayLiteral(values: readonly ArrayValue[]): string {
  if (values.length === 0) return "{}";
  let numbers = 0;
  let plain = 0;
  for (const v of values) {
    if (typeof v === "number") numbers++;
    else if (typeof v === "string" && !QUOTE_OR_BACKSLASH.test(v)) plain++;
    else break;
  }
  if (numbers === values.length) return `{${values.join(",")}}`;
  if (plain === values.length) return `{"${values.join('","')}"}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = element(values[i]);
  return `{${parts.join(",")}}`;
}

/** The array literal of one column of `rows`. */
export function columnLiteral<T, K extends keyof T>(rows: readonly T[], key: K): string {
  return arrayLiteral(rows.map((r) => r[key] as ArrayValue));
}
