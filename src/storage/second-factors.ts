// Whether an account has a second factor (an enabled TOTP factor; passkeys join here): asked by the
// operator routes' guard, the team policy and the sign-in, so it is one query on indexed keys.
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

export async function hasSecondFactor(db: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await db.selectFrom("totp_factors").select("user_id").where("user_id", "=", userId).where("enabled_at", "is not", null).executeTakeFirst();
  return row !== undefined;
}
