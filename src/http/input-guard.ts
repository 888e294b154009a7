// The one check every route's input passes before its schema: no control characters or lone surrogates in
// bodies, querystrings or path parameters (PostgreSQL cannot store NUL, JSON cannot carry a lone surrogate,
// and no field of the API needs either), and no body on a route that declares none.
import type { FastifyRequest } from "fastify";
import { DomainError } from "../shared/errors.js";
import { BAD_IN_TEXT, BAD_IN_URL, findBadString } from "../shared/bad-text.js";

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
    findBadString(req.params, BAD_IN_URL, "params") ?? findBadString(req.query, BAD_IN_URL, "querystring") ?? findBadString(req.body, BAD_IN_TEXT, "body");
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
