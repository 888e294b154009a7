// Generated short codes and the alias_taken refusal (a lost race is recognised by storage/unique-violation.ts).
import { DomainError } from "../shared/errors.js";
import { randomBase62 } from "../shared/ids.js";
import { MESSAGES } from "../contract/form-rules.js";

export const GENERATED_LENGTH = 7;
export const GENERATE_ATTEMPTS = 8;

export function generateAlias(): string {
  return randomBase62(GENERATED_LENGTH);
}

/** The refusal of an alias in use or reserved for another owner (the same answer for both). */
export function aliasTaken(alias: string): DomainError {
  return new DomainError("alias_taken", `The alias "${alias}" is already taken; choose another`, [{ field: "alias", message: MESSAGES.aliasTaken }]);
}
