// DomainError: the one way features report a refusal; http/errors.ts maps codes to statuses.

export type ErrorCode =
  | "invalid_request"
  | "unauthenticated"
  | "invalid_api_key"
  | "invalid_credentials"
  | "csrf_failed"
  | "forbidden"
  | "insufficient_scope"
  | "plan_required"
  | "account_inactive"
  | "email_unverified"
  | "2fa_setup_required"
  | "limit_reached"
  | "not_found"
  | "alias_taken"
  | "conflict"
  | "attribution_expired"
  | "invalid_signature"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "expired"
  | "click_limit_reached"
  | "destination_blocked"
  | "link_disabled"
  | "unavailable_legal"
  | "link_blocked"
  | "sso_required"
  | "reauth_required"
  | "sso_failed"
  | "invalid_challenge"
  | "passkey_rejected"
  | "internal_error"
  | "unavailable";

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
    /** Seconds for a Retry-After header (rate limits, `unavailable`). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export function invalid(field: string, message: string): DomainError {
  return new DomainError("invalid_request", `${field}: ${message}`, [{ field, message }]);
}

/** Codes whose errors name fields (`details`): checks of several fields report them together. */
const FIELD_CODES: readonly ErrorCode[] = ["invalid_request", "destination_blocked"];

/**
 * Runs the checks of a form's fields one after another and reports every wrong field at once. A check
 * that fails with a field error is noted and the next one runs; any other refusal (a plan, a limit) ends
 * the checks, after the field errors noted before it, so what used to be answered first still is. The
 * code is the first failed check's.
 */
export class FieldChecks {
  private readonly failed: DomainError[] = [];

  /** The check's result, or undefined when it failed with a field error. */
  run<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (err) {
      this.note(err);
      return undefined;
    }
  }

  async runAsync<T>(check: () => Promise<T>): Promise<T | undefined> {
    try {
      return await check();
    } catch (err) {
      this.note(err);
      return undefined;
    }
  }

  get ok(): boolean {
    return this.failed.length === 0;
  }

  /** Throws the field errors noted so far, all in one DomainError. */
  throwIfAny(): void {
    const first = this.failed[0];
    if (!first) return;
    if (this.failed.length === 1) throw first;
    const details = this.failed.flatMap((e) => e.details ?? []);
    throw new DomainError(first.code, details.map((d) => `${d.field}: ${d.message}`).join("; "), details, first.extra);
  }

  private note(err: unknown): void {
    if (err instanceof DomainError && err.details?.length && FIELD_CODES.includes(err.code)) {
      this.failed.push(err);
      return;
    }
    this.throwIfAny();
    throw err;
  }
}
