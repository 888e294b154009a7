// The external API's creation limit: 100 per key in a sliding hour, reserved atomically in the database
// (api_creations rows) so it holds exactly across concurrent requests, restarts and instances.
import type SQLite from "better-sqlite3";
import type { Compilable } from "kysely";
import type { Db, Storage } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";

export const CREATIONS_PER_WINDOW = 100;
export const CREATION_WINDOW_MS = 3_600_000;

export interface WindowHeaders {
  limit: number;
  remaining: number;
  /** Seconds until the oldest creation leaves the window (0 when the window is empty). */
  reset: number;
}

export interface Reservation extends WindowHeaders {
  /** The api_creations row; release it when the creation fails. */
  id: number;
}

export class CreationWindow {
  private readonly db: Db;
  private readonly sqlite: SQLite.Database | null;

  constructor(
    storage: Pick<Storage, "db" | "sqlite">,
    private readonly clock: Clock,
    readonly limit = CREATIONS_PER_WINDOW,
    readonly windowMs = CREATION_WINDOW_MS,
  ) {
    this.db = storage.db;
    this.sqlite = storage.sqlite;
  }

  private headers(count: number, oldest: number | null, now: number): WindowHeaders {
    const reset = oldest === null || count === 0 ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    return { limit: this.limit, remaining: Math.max(0, this.limit - count), reset };
  }

  private countQuery(db: Db, keyId: string, now: number) {
    return db
      .selectFrom("api_creations")
      .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("at").as("oldest")])
      .where("key_id", "=", keyId)
      .where("at", ">", now - this.windowMs);
  }

  /** The key's current state, without reserving (for headers and an early 429). */
  async peek(keyId: string): Promise<WindowHeaders> {
    const now = this.clock.now();
    const row = await this.countQuery(this.db, keyId, now).executeTakeFirstOrThrow();
    return this.headers(Number(row.count), row.oldest === null ? null : Number(row.oldest), now);
  }

  /**
   * Takes one slot or throws rate_limited (with Retry-After). Check and insert happen under one lock:
   * the api_keys row FOR UPDATE on PostgreSQL; on SQLite a synchronous BEGIN IMMEDIATE transaction,
   * with no await inside, run while holding Kysely's single-connection lock.
   * A key revoked meanwhile is refused here too.
   */
  async reserve(keyId: string): Promise<Reservation> {
    return this.sqlite ? this.reserveSqlite(this.sqlite, keyId) : this.reservePostgres(keyId);
  }

  /** Gives the slot back (the creation failed, so it does not count). */
  async release(reservation: Reservation): Promise<WindowHeaders> {
    await this.db.deleteFrom("api_creations").where("id", "=", reservation.id).execute();
    const { remaining, reset } = reservation;
    return { limit: this.limit, remaining: Math.min(this.limit, remaining + 1), reset };
  }

  private refuse(count: number, oldest: number | null, now: number): never {
    const h = this.headers(count, oldest, now);
    throw new RateLimitedError(h, Math.max(1, h.reset));
  }

  private async reservePostgres(keyId: string): Promise<Reservation> {
    return this.db.transaction().execute(async (trx) => {
      const now = this.clock.now();
      const key = await trx.selectFrom("api_keys").select("revoked_at").where("id", "=", keyId).forUpdate().executeTakeFirst();
      if (!key || key.revoked_at !== null) throw new DomainError("invalid_api_key", "The API key is unknown or revoked");
      const row = await this.countQuery(trx, keyId, now).executeTakeFirstOrThrow();
      const count = Number(row.count);
      const oldest = row.oldest === null ? null : Number(row.oldest);
      if (count >= this.limit) this.refuse(count, oldest, now);
      // Old rows of this key are no longer needed once outside the window.
      await trx
        .deleteFrom("api_creations")
        .where("key_id", "=", keyId)
        .where("at", "<=", now - this.windowMs)
        .execute();
      const ins = await trx.insertInto("api_creations").values({ key_id: keyId, at: now }).returning("id").executeTakeFirstOrThrow();
      return { id: Number(ins.id), ...this.headers(count + 1, oldest ?? now, now) };
    });
  }

  private async reserveSqlite(handle: SQLite.Database, keyId: string): Promise<Reservation> {
    // connection() holds the mutex of Kysely's one SQLite connection, so no Kysely transaction is open
    // while the synchronous block below runs, and nothing else can run in the middle of it.
    return this.db.connection().execute(async () => {
      const now = this.clock.now();
      const keyQ = this.db.selectFrom("api_keys").select("revoked_at").where("id", "=", keyId);
      const countQ = this.countQuery(this.db, keyId, now);
      const pruneQ = this.db
        .deleteFrom("api_creations")
        .where("key_id", "=", keyId)
        .where("at", "<=", now - this.windowMs);
      const insertQ = this.db.insertInto("api_creations").values({ key_id: keyId, at: now });
      const run = handle.transaction(() => {
        const key = get<{ revoked_at: number | null }>(handle, keyQ);
        if (!key || key.revoked_at !== null) throw new DomainError("invalid_api_key", "The API key is unknown or revoked");
        const row = get<{ count: number; oldest: number | null }>(handle, countQ)!;
        const count = Number(row.count);
        const oldest = row.oldest === null ? null : Number(row.oldest);
        if (count >= this.limit) this.refuse(count, oldest, now);
        exec(handle, pruneQ);
        const id = Number(exec(handle, insertQ).lastInsertRowid);
        return { id, ...this.headers(count + 1, oldest ?? now, now) };
      });
      return run.immediate();
    });
  }
}

/** A 429 that also carries the window state for the RateLimit-* headers. */
export class RateLimitedError extends DomainError {
  constructor(
    readonly window: WindowHeaders,
    retryAfter: number,
  ) {
    super("rate_limited", `This key has made ${window.limit} creations in the last hour; retry in ${retryAfter} s`, undefined, undefined, retryAfter);
  }
}

function get<T>(handle: SQLite.Database, q: Compilable): T | undefined {
  const c = q.compile();
  return handle.prepare(c.sql).get(...(c.parameters as unknown[])) as T | undefined;
}

function exec(handle: SQLite.Database, q: Compilable): SQLite.RunResult {
  const c = q.compile();
  return handle.prepare(c.sql).run(...(c.parameters as unknown[]));
}
