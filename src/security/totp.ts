// TOTP (RFC 6238) through otpauth: 30-second steps, SHA-1, 6 digits (what every authenticator app reads),
// one step of clock drift either way. A check is one HMAC per step tried (microseconds): no password hash.
import { HOTP, Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps of clock drift accepted either way. */
export const TOTP_DRIFT_STEPS = 1;

export interface TotpCheck {
  /** The secret's bytes (20 random bytes for a new factor). */
  secret: Uint8Array;
  token: string;
  /** Epoch ms of the check. */
  at: number;
  digits?: number;
  algorithm?: "SHA1" | "SHA256" | "SHA512";
}

/** A new random secret (160 bits, RFC 4226's recommended size) as base32, the form apps and otpauth URLs take. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function secretBytes(base32: string): Uint8Array {
  return new Uint8Array(Secret.fromBase32(base32).buffer);
}

/** The step (30-second counter) at `at`. */
export function totpStep(at: number): number {
  return TOTP.counter({ period: TOTP_PERIOD_S, timestamp: at });
}

/** The code of the step containing `at` (tests and the benchmark compute codes the way an app does). */
export function totpCode(secret: Uint8Array, at: number, digits = TOTP_DIGITS, algorithm: TotpCheck["algorithm"] = "SHA1"): string {
  return TOTP.generate({ secret: new Secret({ buffer: secret.slice().buffer }), algorithm, digits, period: TOTP_PERIOD_S, timestamp: at });
}

/**
 * The step the token is the code of, within one step of drift of `at`, or null. The caller refuses a
 * step at or before the last one it accepted (a code is good once).
 */
export function matchTotp(c: TotpCheck): number | null {
  const digits = c.digits ?? TOTP_DIGITS;
  if (c.token.length !== digits || !/^[0-9]+$/.test(c.token)) return null;
  const counter = totpStep(c.at);
  const delta = HOTP.validate({
    token: c.token,
    secret: new Secret({ buffer: c.secret.slice().buffer }),
    algorithm: c.algorithm ?? "SHA1",
    digits,
    counter,
    window: TOTP_DRIFT_STEPS,
  });
  return delta === null ? null : counter + delta;
}

/** The otpauth:// URL an authenticator app reads from the QR code. */
export function totpUrl(base32: string, account: string, issuer: string): string {
  return new TOTP({ issuer, label: account, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(base32) }).toString();
}
