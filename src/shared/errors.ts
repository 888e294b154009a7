// DomainError: the one way features report a refusal; http/errors.ts maps codes to statuses.

export type ErrorCode =
  | "invalid_request"
  | "unauthenticated"
  | "invalid_api_key"
  | "invalid_credentials"
  | "csrf_failed"
  | "forbidden"
  | "plan_required"
  | "account_inactive"
  | "email_unverified"
  | "limit_reached"
  | "not_found"
  | "alias_taken"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "expired"
  | "click_limit_reached"
  | "destination_blocked"
  | "link_disabled"
  | "unavailable_legal"
  | "link_blocked"
  | "internal_error";

export interface FieldError {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
    /** Extra top-level fields for the error body, e.g. { required_plan: "pro" }. */
    readonly extra?: Record<string, unknown>,
    /** Seconds for a Retry-After header (rate limits). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export function invalid(field: string, message: string): DomainError {
  return new DomainError("invalid_request", `${field}: ${message}`, [{ field, message }]);
}
