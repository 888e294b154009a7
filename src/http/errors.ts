// The one table from DomainError codes to HTTP statuses, and the error-body writer (for routes, and for
// requests Fastify or Node refuse before any route).
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorCode, type FieldError } from "../shared/errors.js";
import { SECURITY_HEADERS } from "./security-headers.js";

export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  destination_blocked: 400,
  unauthenticated: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  csrf_failed: 403,
  forbidden: 403,
  plan_required: 403,
  account_inactive: 403,
  email_unverified: 403,
  limit_reached: 403,
  click_limit_reached: 403,
  not_found: 404,
  alias_taken: 409,
  conflict: 409,
  expired: 410,
  // The redirect's answers for links an operator closed (docs/operator.md).
  link_disabled: 410,
  link_blocked: 410,
  unavailable_legal: 451,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
};

export interface ErrorBody {
  status: "error";
  code: ErrorCode;
  message: string;
  details?: FieldError[];
  [extra: string]: unknown;
}

export function errorBody(err: DomainError): ErrorBody {
  const body: ErrorBody = { ...(err.extra ?? {}), status: "error", code: err.code, message: err.message };
  if (err.details?.length) body.details = err.details;
  return body;
}

/** Turns any thrown value into a DomainError; unknown failures become a bare internal_error. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const fe = err as FastifyError & { validation?: Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }> };
  if (fe?.validation) {
    const details = fe.validation.map((v) => {
      const extra = v.params?.additionalProperties ?? v.params?.requiredProperties ?? v.params?.missingProperty;
      const path = (v.instancePath ?? "").replace(/^\//, "").replace(/\//g, ".");
      const field = [path, Array.isArray(extra) ? extra.join(",") : extra].filter(Boolean).join(".") || (fe.validationContext ?? "body");
      return { field, message: v.message ?? "is invalid" };
    });
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

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const de = toDomainError(err);
  const status = STATUS_BY_CODE[de.code];
  if (status >= 500) request.log.error({ err }, "request failed");
  if (de.retryAfter !== undefined) reply.header("Retry-After", String(de.retryAfter));
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
    const headers = Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join("");
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
