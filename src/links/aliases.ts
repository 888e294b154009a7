// Generated short codes, detection of the (domain, alias) unique-constraint violation on both engines, and the alias_taken refusal.
import { DomainError } from "../shared/errors.js";
import { randomBase62 } from "../shared/ids.js";

export const GENERATED_LENGTH = 7;
export const GENERATE_ATTEMPTS = 8;

export function generateAlias(): string {
  return randomBase62(GENERATED_LENGTH);
}

/** True for a unique violation: SQLite (better-sqlite3) or PostgreSQL (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  return e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || e?.code === "23505";
}

/** The refusal of an alias in use or reserved for another owner (the same answer for both). */
export function aliasTaken(alias: string): DomainError {
  return new DomainError("alias_taken", `The alias "${alias}" is already taken; choose another`, [{ field: "alias", message: "is already taken" }]);
}
