// argon2id hashing for account and link passwords.
import { hash, verify } from "@node-rs/argon2";
import { invalid } from "../shared/errors.js";
import { accountPasswordProblem } from "../contract/form-rules.js";

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane.
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * A hash made with exactly these parameters (salt and digest of argon2's default sizes or more). A hash
 * carries its own cost: one with t=300 or m in GiB would hold a pool thread for seconds per guess, so
 * neither an import nor any stored row may bring one (docs/import.md).
 */
const OWN_HASH_RE = new RegExp(
  `^\\$argon2id\\$v=19\\$m=${OPTIONS.memoryCost},t=${OPTIONS.timeCost},p=${OPTIONS.parallelism}\\$[A-Za-z0-9+/]{22,88}\\$[A-Za-z0-9+/]{43,88}$`,
);

export function isOwnHash(stored: string): boolean {
  return OWN_HASH_RE.test(stored);
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** False for a hash with any other parameters: no row can set the cost of a guess. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  if (!isOwnHash(stored)) return false;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

export function checkAccountPassword(password: string, field = "password"): void {
  const problem = accountPasswordProblem(password);
  if (problem) throw invalid(field, problem);
}
