// The one table from DomainError codes to HTTP statuses, and the error-body writer (for routes, and for
// requests Fastify or Node refuse before any route).
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorCode } from "../shared/errors.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import { HTML_CSP, errorPage, prefersJson } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";
import type { ErrorBody as ContractErrorBody, FieldError } from "../contract/common.js";

export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  destination_blocked: 400,
  // Passkeys (docs/passkeys.md): no pending challenge (none, expired, used) or an answer signing another one;
  // an authenticator's registration answer that does not verify.
  invalid_challenge: 400,
  passkey_rejected: 400,
  unauthenticated: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  csrf_failed: 403,
  forbidden: 403,
  // An API key without the scope the route needs (docs/api.md, API keys).
  insufficient_scope: 403,
  plan_required: 403,
  account_inactive: 403,
  // Password sign-in refused: the address must sign in through single sign-on (docs/sso.md).
  sso_required: 403,
  // A change of how the account signs in, without a proof of identity in the last 10 minutes (sudo mode, docs/security.md).
  reauth_required: 403,
  // A single sign-on callback refused (state, nonce, issuer, audience, unverified email; docs/sso.md).
  sso_failed: 400,
  email_unverified: 403,
  // An operator, or a member of a team that requires it, without a second factor (docs/security.md).
  "2fa_setup_required": 403,
  limit_reached: 403,
  click_limit_reached: 403,
  not_found: 404,
  alias_taken: 409,
  conflict: 409,
  attribution_expired: 422,
  // A Stripe event whose signature does not verify or is outside Stripe's tolerance (docs/conversions.md, Stripe).
  invalid_signature: 400,
  expired: 410,
  // The redirect's answers for links an operator closed (docs/operator.md).
  link_disabled: 410,
  link_blocked: 410,
  unavailable_legal: 451,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  // The database is stopped, restarting, unreachable or its disk full (docs/operations.md, When things fail).
  unavailable: 503,
};

/** Retry-After of a 503 `unavailable`: a restart or failover usually takes a few seconds. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
/** While the database is unavailable, one log line per this long (each request would otherwise log one). */
const UNAVAILABLE_LOG_MS = 10_000;

/** The contract's error body, with the server's own list of codes and the extra fields some errors carry. */
export type ErrorBody = Omit<ContractErrorBody, "code"> & { code: ErrorCode; [extra: string]: unknown };

export function errorBody(err: DomainError): ErrorBody {
  const body: ErrorBody = { ...(err.extra ?? {}), status: "error", code: err.code, message: err.message };
  if (err.details?.length) body.details = err.details;
  return body;
}

/** At most this many field errors in one answer: a body of many wrong items need not list each. */
export const MAX_FIELD_ERRORS = 64;

interface SchemaIssue {
  keyword?: string;
  schemaPath?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * The schema validator's issues as one entry per wrong field, every field at once (the validator reports
 * them all), each unknown field named on its own, bounded by MAX_FIELD_ERRORS.
 */
function schemaDetails(issues: readonly SchemaIssue[], context: string): FieldError[] {
  const details: FieldError[] = [];
  const seen = new Set<string>();
  const add = (field: string, message: string) => {
    if (seen.has(field) || details.length >= MAX_FIELD_ERRORS) return;
    seen.add(field);
    details.push({ field, message });
  };
  const path = (v: SchemaIssue) => (v.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
  for (const v of issues) {
    // TypeBox reports an unknown property twice, as a false sub-schema and in its parent's list: one entry.
    if (v.keyword === "boolean" && v.schemaPath?.endsWith("/additionalProperties")) {
      add(path(v), "is not a known field");
      continue;
    }
    const unknown = v.params?.additionalProperties;
    const missing = v.params?.requiredProperties ?? v.params?.missingProperty;
    const base = path(v);
    if (Array.isArray(unknown)) {
      for (const name of unknown) add([base, String(name)].filter(Boolean).join("."), "is not a known field");
    } else if (missing !== undefined) {
      for (const name of Array.isArray(missing) ? missing : [missing]) add([base, String(name)].filter(Boolean).join("."), "is required");
    } else {
      add(base || context, v.message ?? "is invalid");
    }
  }
  return details;
}

/** Turns any thrown value into a DomainError; unknown failures become a bare internal_error. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (isDatabaseUnavailable(err)) return unavailable();
  const fe = err as FastifyError & { validation?: SchemaIssue[] };
  if (fe?.validation) {
    const details = schemaDetails(fe.validation, fe.validationContext ?? "body");
    const where = fe.validationContext ?? "request";
    return new DomainError("invalid_request", `Invalid ${where}: ${details.map((d) => `${d.field} ${d.message}`).join("; ")}`, details);
  }
  switch (fe?.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new DomainError("payload_too_large", "Request body is too large");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new DomainError("invalid_request", "Unsupported Content-Type for this route");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new DomainError("invalid_request", "Request body is empty");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new DomainError("invalid_request", "Request body is not valid JSON");
  }
  switch (fe?.code) {
    case "FST_ERR_BAD_URL":
      return new DomainError("invalid_request", "The address is not valid percent-encoded UTF-8");
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new DomainError("invalid_request", "A path segment of the address is too long");
  }
  const status = fe?.statusCode;
  if (err instanceof SyntaxError || status === 400) return new DomainError("invalid_request", "Malformed request");
  if (status === 413) return new DomainError("payload_too_large", "Request body is too large");
  // The static file server refuses paths outside its folder and dotfiles with 403: there is nothing there.
  if (status === 403 || status === 404) return new DomainError("not_found", "Not found");
  // Any other refusal of the request by Fastify or a plugin (415, 416, ...) is the client's, never a 500.
  if (typeof status === "number" && status >= 400 && status < 500) return new DomainError("invalid_request", "Unsupported request for this route");
  return new DomainError("internal_error", "Internal error");
}

/** The answer while the database cannot serve: the same for every cause, nothing of it shown. */
export function unavailable(): DomainError {
  return new DomainError("unavailable", "The service is temporarily unavailable; try again in a few seconds", undefined, undefined, UNAVAILABLE_RETRY_AFTER_S);
}

/** Per logger: when an `unavailable` answer was last logged, and how many were answered since. */
const unavailableLogged = new WeakMap<object, { at: number; answered: number }>();

function logUnavailable(request: FastifyRequest, err: unknown): void {
  const now = Date.now();
  const last = unavailableLogged.get(request.log);
  if (last !== undefined && now - last.at < UNAVAILABLE_LOG_MS) {
    last.answered++;
    return;
  }
  request.log.warn({ err, answeredSinceLastLine: last?.answered ?? 0 }, "database unavailable: answering 503 unavailable");
  unavailableLogged.set(request.log, { at: now, answered: 0 });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const de = toDomainError(err);
  const status = STATUS_BY_CODE[de.code];
  if (de.code === "unavailable") logUnavailable(request, err);
  else if (status >= 500) request.log.error({ err }, "request failed");
  if (de.retryAfter !== undefined) reply.header("Retry-After", String(de.retryAfter));
  // A visitor's browser opening a short link gets a page, as for the redirect's other errors.
  if (de.code === "unavailable" && !request.url.startsWith("/api/") && request.headers.accept?.includes("text/html") && !prefersJson(request.headers.accept)) {
    const page = errorPage(status, {
      title: "Temporarily unavailable",
      heading: "This service cannot answer right now",
      text: "Nothing is lost: please try again in a few seconds.",
    });
    return reply.code(status).headers(SECURITY_HEADERS).header("content-security-policy", HTML_CSP).type("text/html; charset=utf-8").send(page);
  }
  // Also what the onSend hook adds: a request refused before routing (frameworkErrors) skips the hooks.
  return reply.code(status).headers(SECURITY_HEADERS).type("application/json; charset=utf-8").send(errorBody(de));
}

/** Node's parser refused the request (control bytes in a header, a malformed request line): no route saw it. */
export function sendBadRequestLine(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) {
    // Statuses as the table has them: 413 for headers (or an address) past Node's limit, else 400.
    const [code, message] =
      err.code === "HPE_HEADER_OVERFLOW"
        ? (["payload_too_large", "Request headers or address are too large"] as const)
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? (["invalid_request", "The request was not received in time"] as const)
          : (["invalid_request", "Malformed HTTP request"] as const);
    const status = STATUS_BY_CODE[code];
    const reason = status === 413 ? "Content Too Large" : "Bad Request";
    // A HEAD answer has no body (the client would read it as the next response); the method is in the raw bytes.
    const head = Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString("latin1") === "HEAD ";
    const body = head ? "" : JSON.stringify({ status: "error", code, message });
    const headers = Object.entries(SECURITY_HEADERS)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
