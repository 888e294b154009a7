// Server-side sessions: the cookie holds a random id, the database only its SHA-256; CSRF tokens are
// an HMAC of the session id, so signed-out visitors get a token without a database row.
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { hmacHex, newId, randomToken, safeEqual, sha256Hex } from "../shared/ids.js";
import { DomainError } from "../shared/errors.js";
import type { UserRow } from "../storage/schema.js";
import type { SessionView } from "../contract/security.js";
import { iso } from "../shared/clock.js";

/** What a session shows of where it was made (no address is kept). */
export interface SessionDevice {
  browser: string | null;
  os: string | null;
  country: string | null;
}

export const SESSION_COOKIE = "snip_sid";

/** A live session as a request sees it: its user, the way in that made it, and its last proof of identity. */
export interface SessionFound {
  user: UserRow;
  /** src/auth/ways.ts's Way; null for sessions made before ways were recorded. */
  way: string | null;
  /** Epoch ms of the sign-in or the last POST /api/auth/reauth (sudo mode); null: never. */
  reauthAt: number | null;
}

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

  /**
   * A fresh signed-in session for the user, made by `way` (the sign-in proves the person, so the session
   * starts in sudo mode); returns the new cookie value. Only src/auth/ opens sessions for people.
   */
  async create(userId: string, device: SessionDevice = { browser: null, os: null, country: null }, way: string | null = null): Promise<string> {
    const id = this.newSessionId();
    const now = this.clock.now();
    await this.db
      .insertInto("sessions")
      .values({
        id_hash: sha256Hex(id),
        user_id: userId,
        created_at: now,
        expires_at: now + this.ttlMs,
        last_seen_at: now,
        public_id: newId(),
        ...device,
        way,
        reauth_at: now,
      })
      .execute();
    return id;
  }

  /** Notes that the session's owner proved who they are now (POST /api/auth/reauth). */
  async markReauthenticated(sessionId: string): Promise<number> {
    const now = this.clock.now();
    await this.db.updateTable("sessions").set({ reauth_at: now }).where("id_hash", "=", sha256Hex(sessionId)).execute();
    return now;
  }

  /** The user's live sessions, newest first; the one of `currentSessionId` marked current. */
  async list(userId: string, currentSessionId: string | null): Promise<SessionView[]> {
    const currentHash = currentSessionId ? sha256Hex(currentSessionId) : null;
    const rows = await this.db
      .selectFrom("sessions")
      .select(["id_hash", "public_id", "browser", "os", "country", "way", "created_at", "last_seen_at"])
      .where("user_id", "=", userId)
      .where("expires_at", ">", this.clock.now())
      .orderBy("created_at", "desc")
      .execute();
    return rows.map((r) => ({
      id: r.public_id ?? "",
      current: r.id_hash === currentHash,
      browser: r.browser,
      os: r.os,
      country: r.country,
      way: r.way,
      created_at: iso(Number(r.created_at)),
      last_seen_at: iso(Number(r.last_seen_at)),
    }));
  }

  /** Ends one of the user's own sessions by its public id (not_found for anyone else's). */
  async revoke(userId: string, publicId: string): Promise<void> {
    const r = await this.db.deleteFrom("sessions").where("user_id", "=", userId).where("public_id", "=", publicId).executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw new DomainError("not_found", "No such session");
  }

  /** The signed-in user of a session id, or null when unknown or expired. */
  async userFor(sessionId: string): Promise<UserRow | null> {
    return (await this.find(sessionId))?.user ?? null;
  }

  /** The live session of an id with its user (one query), or null when unknown or expired. */
  async find(sessionId: string): Promise<SessionFound | null> {
    const now = this.clock.now();
    const row = await this.db
      .selectFrom("sessions")
      .innerJoin("users", "users.id", "sessions.user_id")
      .selectAll("users")
      .select([
        "sessions.expires_at as session_expires_at",
        "sessions.last_seen_at as session_seen_at",
        "sessions.way as session_way",
        "sessions.reauth_at as session_reauth_at",
      ])
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
    const { session_expires_at: _e, session_seen_at: _s, session_way: way, session_reauth_at: reauthAt, ...user } = row;
    return { user, way, reauthAt: reauthAt === null ? null : Number(reauthAt) };
  }

  async destroy(sessionId: string): Promise<void> {
    await this.db.deleteFrom("sessions").where("id_hash", "=", sha256Hex(sessionId)).execute();
  }

  /** Ends every session of the user but `exceptSessionId`'s; how many ended. */
  async destroyAllFor(userId: string, exceptSessionId?: string | null): Promise<number> {
    let q = this.db.deleteFrom("sessions").where("user_id", "=", userId);
    if (exceptSessionId) q = q.where("id_hash", "!=", sha256Hex(exceptSessionId));
    return Number((await q.executeTakeFirst()).numDeletedRows);
  }

  /** Ends the sessions of these accounts that `keepWay` did not make (null ways included); how many ended. */
  async destroyNotMadeBy(userIds: string[], keepWay: string): Promise<number> {
    if (userIds.length === 0) return 0;
    const r = await this.db
      .deleteFrom("sessions")
      .where("user_id", "in", userIds)
      .where((eb) => eb.or([eb("way", "is", null), eb("way", "!=", keepWay)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async pruneExpired(): Promise<void> {
    await this.db.deleteFrom("sessions").where("expires_at", "<=", this.clock.now()).execute();
  }
}
