// argon2id hashing for account and link passwords.
import { hash, verify } from "@node-rs/argon2";
import { invalid } from "../shared/errors.js";
import { accountPasswordProblem } from "../contract/form-rules.js";

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane.
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
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
