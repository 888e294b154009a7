// The one-use tokens of email links (address verification, password reset): one live token per account and purpose, only its SHA-256 stored.
import type { Db } from "../storage/db.js";
import type { UserRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import { invalid } from "../shared/errors.js";
import { randomToken, sha256Hex } from "../shared/ids.js";

export type TokenPurpose = "verify" | "reset";

/** Whether a token from a link can be one of ours at all (checked before any query). */
function wellFormed(token: string): boolean {
  return typeof token === "string" && token.length >= 20 && token.length <= 200;
}

async function userById(db: Db, id: string): Promise<UserRow | null> {
  return (await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/** A new token for the link of an email, valid for `ttl` ms. */
export async function issueToken(db: Db, user: UserRow, purpose: TokenPurpose, clock: Clock, ttl: number): Promise<string> {
  const token = randomToken(32);
  const now = clock.now();
  // One live token per purpose: a new email invalidates the previous link.
  await db.deleteFrom("email_tokens").where("user_id", "=", user.id).where("purpose", "=", purpose).execute();
  await db
    .insertInto("email_tokens")
    .values({ token_hash: sha256Hex(token), user_id: user.id, purpose, email: user.email, expires_at: now + ttl, used_at: null, created_at: now })
    .execute();
  return token;
}

/** Uses a live token up; its account, whose address must still be the one the link went to (else "invalid or has expired"). */
export async function consumeToken(db: Db, token: string, purpose: TokenPurpose, clock: Clock): Promise<UserRow> {
  if (!wellFormed(token)) throw invalid("token", "is invalid or has expired");
  const now = clock.now();
  const consumed = await db
    .updateTable("email_tokens")
    .set({ used_at: now })
    .where("token_hash", "=", sha256Hex(token))
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning(["user_id", "email"])
    .executeTakeFirst();
  const user = consumed ? await userById(db, consumed.user_id) : null;
  if (!consumed || !user || user.email !== consumed.email) throw invalid("token", "is invalid or has expired");
  return user;
}

/** The verified account whose verification link this is, once used; null otherwise. */
export async function verifiedBy(db: Db, token: string): Promise<UserRow | null> {
  if (!wellFormed(token)) return null;
  const used = await db
    .selectFrom("email_tokens")
    .select(["user_id", "email"])
    .where("token_hash", "=", sha256Hex(token))
    .where("purpose", "=", "verify")
    .where("used_at", "is not", null)
    .executeTakeFirst();
  const user = used ? await userById(db, used.user_id) : null;
  return user && user.email === used?.email && user.email_verified_at !== null ? user : null;
}

/** The account a live reset link is for, without using the link up; null otherwise. */
export async function resetLinkAccount(db: Db, token: string, clock: Clock): Promise<UserRow | null> {
  if (!wellFormed(token)) return null;
  const now = clock.now();
  const row = await db
    .selectFrom("email_tokens")
    .select(["user_id", "email"])
    .where("token_hash", "=", sha256Hex(token))
    .where("purpose", "=", "reset")
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  const user = row ? await userById(db, row.user_id) : null;
  return user && user.email === row?.email ? user : null;
}
