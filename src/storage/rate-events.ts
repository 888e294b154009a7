// Sliding-window counters kept in the database, so throttles hold across restarts and instances.
import { type Kysely, sql } from "kysely";
import type { Db, Dialect } from "./db.js";
import type { Database } from "./schema.js";

export interface WindowState {
  count: number;
  /** Epoch ms of the oldest event still inside the window, or null when empty. */
  oldest: number | null;
}

async function stateOf(db: Kysely<Database>, bucket: string, since: number): Promise<WindowState> {
  const row = await db
    .selectFrom("rate_events")
    .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("at").as("oldest")])
    .where("bucket", "=", bucket)
    .where("at", ">", since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

export class RateEvents {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  state(bucket: string, since: number): Promise<WindowState> {
    return stateOf(this.db, bucket, since);
  }

  async record(bucket: string, at: number): Promise<void> {
    await this.db.insertInto("rate_events").values({ bucket, at }).execute();
  }

  /**
   * Takes one of `limit` slots of the window for an attempt whose outcome is not known yet: the count and
   * the record share one transaction that holds the bucket's lock (PostgreSQL: an advisory lock on the
   * bucket's hash, so concurrent attempts on every instance queue here; SQLite: the transaction's write
   * lock), so of N+1 concurrent attempts exactly `limit` get a slot. The caller removes the record
   * (`remove`) when the attempt is not to count.
   */
  take(bucket: string, since: number, limit: number, at: number): Promise<{ id: number } | { full: WindowState }> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtext(${bucket}))`.execute(trx);
      const state = await stateOf(trx, bucket, since);
      if (state.count >= limit) return { full: state };
      const { id } = await trx.insertInto("rate_events").values({ bucket, at }).returning("id").executeTakeFirstOrThrow();
      return { id: Number(id) };
    });
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom("rate_events").where("id", "=", id).execute();
  }

  async clear(bucket: string): Promise<void> {
    await this.db.deleteFrom("rate_events").where("bucket", "=", bucket).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom("rate_events").where("at", "<", before).execute();
  }
}

/** Seconds until the window frees one slot (at least 1). */
export function retryAfterSeconds(state: WindowState, windowMs: number, now: number): number {
  if (state.oldest === null) return 1;
  return Math.max(1, Math.ceil((state.oldest + windowMs - now) / 1000));
}
