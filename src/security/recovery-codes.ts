// Recovery codes: 10 random codes of 80 bits each, shown once, kept as SHA-256 (random codes of this size
// need no slow hash: a database dump cannot be searched for them).
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../shared/ids.js";

export const RECOVERY_CODES = 10;
// Crockford-like base32 without look-alikes (no 0/o, 1/l/i).
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const GROUPS = 4;
const GROUP_LEN = 4;
const CLEAN_RE = new RegExp(`^[${ALPHABET}]{${GROUPS * GROUP_LEN}}$`);

function oneCode(): string {
  let out = "";
  while (out.length < GROUPS * GROUP_LEN) {
    for (const b of randomBytes(32)) {
      // Rejection sampling: no modulo bias.
      if (b < 248 && out.length < GROUPS * GROUP_LEN) out += ALPHABET[b % ALPHABET.length];
    }
  }
  return out.match(new RegExp(`.{${GROUP_LEN}}`, "g"))!.join("-");
}

/** "abcd-efgh-jkmn-pqrs" x 10 (31^16: about 79 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, oneCode);
}

/** The code as typed, without spaces, dashes or case; null when it cannot be a recovery code. */
function clean(code: string): string | null {
  if (code.length > 64) return null;
  const c = code.toLowerCase().replace(/[\s-]/g, "");
  return CLEAN_RE.test(c) ? c : null;
}

export function looksLikeRecoveryCode(code: string): boolean {
  return clean(code) !== null;
}

/** What is kept of a code: SHA-256 over the account and the code (a code belongs to one account). */
export function recoveryCodeHash(userId: string, code: string): string | null {
  const c = clean(code);
  return c === null ? null : sha256Hex(`recovery:${userId}:${c}`);
}
