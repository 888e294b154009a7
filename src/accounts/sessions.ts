// Server-side sessions: the cookie holds a random id, the database only its SHA-256; CSRF tokens are
// an HMAC of the session id, so signed-out visitors get a token without a database row.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { hmacHex, randomToken, safeEqual, sha256Hex } from "../shared/ids.js";
import type { UserRow } from "../storage/schema.js";

export const SESSION_COOKIE = "snip_sid";

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly ttlMs: number,
  ) {}

  get ttlSeconds(): number {
    return Math.floor(this.ttlMs / 1000);
  }

  newSessionId(): string {
    return randomToken(32);
  }

  csrfTokenFor(sessionId: string): string {
    return hmacHex(this.secret, `csrf:${sessionId}`);
  }

  checkCsrf(sessionId: string | undefined, token: string | undefined): boolean {
    if (!sessionId || !token) return false;
    return safeEqual(this.csrfTokenFor(sessionId), token);
  }

  /** A fresh signed-in session for the user; returns the new cookie value. */
  async create(userId: string): Promise<string> {
    const id = this.newSessionId();
    const now = this.clock.now();
    await this.db
      .insertInto("sessions")
      .values({ id_hash: sha256Hex(id), user_id: userId, created_at: now, expires_at: now + this.ttlMs, last_seen_at: now })
      .execute();
    return id;
  }

  /** The signed-in user of a session id, or null when unknown or expired. */
  async userFor(sessionId: string): Promise<UserRow | null> {
    const now = this.clock.now();
    const row = await this.db
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .selectAll("users")
      .select(["sessions.expires_at as session_expires_at", "sessions.last_seen_at as session_seen_at"])
      .where("sessions.id_hash", "=", sha256Hex(sessionId))
      .executeTakeFirst();
    if (!row || row.session_expires_at <= now) return null;
    // Sliding expiry, written at most once an hour per session.
    if (now - row.session_seen_at > 3_600_000) {
      await this.db
        .updateTable("sessions")
        .set({ last_seen_at: now, expires_at: now + this.ttlMs })
        .where("id_hash", "=", sha256Hex(sessionId))
        .execute();
    }
    const { session_expires_at: _e, session_seen_at: _s, ...user } = row;
    return user;
  }

  async destroy(sessionId: string): Promise<void> {
    await this.db.deleteFrom("sessions").where("id_hash", "=", sha256Hex(sessionId)).execute();
  }

  async destroyAllFor(userId: string, exceptSessionId?: string): Promise<void> {
    let q = this.db.deleteFrom("sessions").where("user_id", "=", userId);
    if (exceptSessionId) q = q.where("id_hash", "!=", sha256Hex(exceptSessionId));
    await q.execute();
  }

  async pruneExpired(): Promise<void> {
    await this.db.deleteFrom("sessions").where("expires_at", "<=", this.clock.now()).execute();
  }
}
