// Checks of what a site sends about its conversions (docs/conversions.md, The API): the same rules for the
// tracking API and for Stripe's events, so a value refused by one is refused by the other.
import { invalid } from "../shared/errors.js";
import { BAD_IN_URL } from "../shared/bad-text.js";

/** Largest amount in minor units (well below 2^53, so sums stay exact). */
export const MAX_AMOUNT = 1_000_000_000_000_000;
/** Largest metadata object, as JSON. */
export const MAX_METADATA_BYTES = 4096;
/** Attribution window when the account did not choose one. */
export const DEFAULT_ATTRIBUTION_DAYS = 90;

/** Every currency code Node's ICU knows (ISO 4217). */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/** An ISO 4217 code (any case in, upper case out), or 400 invalid_request on `field`. */
export function checkCurrency(raw: string, field = "currency"): string {
  const code = raw.toUpperCase();
  if (!/^[A-Z]{3}$/.test(code) || !CURRENCIES.has(code)) throw invalid(field, "must be an ISO 4217 currency code such as EUR or USD");
  return code;
}

/** An integer number of minor units, at most MAX_AMOUNT in size; `negative` allows a refund's sign. */
export function checkAmount(raw: number, field = "amount", negative = false): number {
  if (!Number.isSafeInteger(raw)) throw invalid(field, "must be a whole number of the currency's minor units (cents for EUR)");
  if (raw < 0 && !negative) throw invalid(field, "must not be negative");
  if (Math.abs(raw) > MAX_AMOUNT) throw invalid(field, `must be at most ${MAX_AMOUNT}`);
  return raw;
}

/** A metadata object as stored (JSON text), null when absent, 400 past MAX_METADATA_BYTES. */
export function checkMetadata(raw: Record<string, unknown> | null | undefined, field = "metadata"): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) throw invalid(field, "must be a JSON object");
  const text = JSON.stringify(raw);
  if (Buffer.byteLength(text) > MAX_METADATA_BYTES) throw invalid(field, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  return text;
}

/** Text a site names things with (ids, event names): trimmed, 1..max characters, no control characters. */
export function checkName(raw: string, field: string, max: number): string {
  const value = raw.trim();
  if (value.length === 0) throw invalid(field, "must not be empty");
  if (value.length > max) throw invalid(field, `must be at most ${max} characters`);
  if (BAD_IN_URL.test(value)) throw invalid(field, "must not contain control characters or unpaired surrogates");
  return value;
}

/** An optional personal field: null when absent or blank. */
export function optionalText(raw: string | null | undefined, field: string, max: number): string | null {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  return checkName(raw, field, max);
}
