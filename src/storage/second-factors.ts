// Whether an account has a second factor (an enabled TOTP factor; passkeys join here): asked by the
// operator routes' guard, the team policy and the sign-in, so it is one query on indexed keys.
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export async function hasSecondFactor(db: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await db.selectFrom("totp_factors").select("user_id").where("user_id", "=", userId).where("enabled_at", "is not", null).executeTakeFirst();
  return row !== undefined;
}

/** Which of these accounts have a second factor (hasSecondFactor's test, for a team's member list in one query). */
export async function withSecondFactor(db: Kysely<Database>, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom("totp_factors").select("user_id").where("user_id", "in", userIds).where("enabled_at", "is not", null).execute();
  return new Set(rows.map((r) => r.user_id));
}
