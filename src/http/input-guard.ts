// The one check every route's input passes before its schema: no control characters or lone surrogates in
// bodies, querystrings or path parameters (PostgreSQL cannot store NUL, JSON cannot carry a lone surrogate,
// and no field of the API needs either), and no body on a route that declares none.
import type { FastifyRequest } from "fastify";
import { DomainError } from "../shared/errors.js";

/**
 * Refused in every string (values and keys): C0 controls but TAB, LF and CR, DEL, C1 controls, and
 * surrogates without their pair. TAB, LF and CR are text (multi-line bodies such as the bulk URL list).
 */
const BAD_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Path segments and query parameters are single-line: no control character at all. */
const BAD_IN_URL = /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Nesting deeper than any body of the API, refused before the schema walks it. */
const MAX_DEPTH = 32;

/** The first string in `value` (keys included) that `bad` matches, as a dotted field path; iterative, so depth cannot overflow the stack. */
export function findBadString(value: unknown, bad: RegExp, root: string): string | null {
  const stack: Array<[unknown, string, number]> = [[value, root, 0]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === "string") {
      if (bad.test(v)) return path;
      continue;
    }
    if (v === null || typeof v !== "object" || Buffer.isBuffer(v)) continue;
    if (depth >= MAX_DEPTH) return `${root} (nested deeper than ${MAX_DEPTH} levels)`;
    for (const [k, child] of Object.entries(v)) {
      if (bad.test(k)) return `${path}.${k.replace(bad, "?")}`;
      stack.push([child, `${path}.${k}`, depth + 1]);
    }
  }
  return null;
}

function refuse(field: string, what: string): DomainError {
  return new DomainError("invalid_request", `Invalid ${field}: ${what}`, [{ field, message: what }]);
}

/** An empty JSON object, what a client without anything to say may send to a route that takes no body. */
function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  return typeof body === "object" && !Array.isArray(body) && !Buffer.isBuffer(body) && Object.keys(body).length === 0;
}

/** preValidation hook for every route (app.ts). */
export async function guardInput(req: FastifyRequest): Promise<void> {
  const bad =
    findBadString(req.params, BAD_IN_URL, "params") ??
    findBadString(req.query, BAD_IN_URL, "querystring") ??
    findBadString(req.body, BAD_IN_TEXT, "body");
  if (bad !== null) {
    const message = bad.includes("nested deeper") ? "is nested too deeply" : "contains a control character or an unpaired surrogate";
    throw refuse(bad.replace(/ \(.*\)$/, ""), message);
  }
  // A route without a body schema takes no body (raw bodies, e.g. a picture, have parsers of their own).
  if (!req.routeOptions.schema?.body && !Buffer.isBuffer(req.body) && !isEmptyBody(req.body)) {
    throw refuse("body", "this route takes no body (send none, or {})");
  }
}

/**
 * preValidation hook of a route whose query has integers: the schema's conversion would read `1.5` as 1 and
 * an empty value as 0; these must be written as whole numbers.
 */
export function wholeNumbersInQuery(...fields: string[]): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    for (const field of fields) {
      const v = query[field];
      if (typeof v === "string" && !/^-?\d{1,9}$/.test(v)) throw refuse(field, "must be integer");
    }
  };
}
