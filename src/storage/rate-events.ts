// Sliding-window counters kept in the database, so throttles hold across restarts and instances.
import { type Kysely, type Transaction, sql } from "kysely";
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

/** One window an attempt must find room in: at most `limit` events of `bucket` in the last `windowMs`. */
export interface Limit {
  bucket: string;
  windowMs: number;
  limit: number;
}

/** The events an attempt recorded, one per window: kept, they count; released, the attempt never happened. */
export class Slot {
  constructor(
    private readonly rate: RateEvents,
    readonly ids: readonly number[],
  ) {}

  /** Gives the slot back (the attempt succeeded, or failed for a reason that is not to count). */
  async release(): Promise<void> {
    await this.rate.forget(this.ids);
  }

  /** Gives the slot back and empties `bucket`'s window with it, in one statement (a right password clears the account's failures). */
  async releaseClearing(bucket: string): Promise<void> {
    await this.rate.forget(this.ids, bucket);
  }
}

/** A slot in every window, or the first full window in the caller's order with its Retry-After in seconds. */
export type Attempt<L extends Limit = Limit> = { slot: Slot } | { full: { limit: L; state: WindowState; retryAfter: number } };

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

  /**
   * `take` over one or more windows at once: every window is checked and, only when all have room, one
   * event recorded in each, in one transaction holding every bucket's lock (PostgreSQL: advisory locks
   * taken in hash order, so two attempts over the same buckets cannot deadlock). Of N concurrent attempts
   * exactly as many get a slot as the fullest window has room for; a refused attempt records nothing.
   */
  attempt<L extends Limit>(limits: readonly L[], at: number): Promise<Attempt<L>> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === "postgres") await relaxedCommit(trx);
      return this.attemptIn(trx, limits, at);
    });
  }

  /**
   * `attempt` inside the caller's transaction, for a limit that must hold with the rest of a change (the
   * window's events roll back with it, so a refused change needs no slot given back; the caller's commit
   * waits for the disk as its change needs).
   */
  async attemptIn<L extends Limit>(trx: Transaction<Database>, limits: readonly L[], at: number): Promise<Attempt<L>> {
    if (this.dialect === "postgres") {
      const buckets = [...new Set(limits.map((l) => l.bucket))];
      await sql`select pg_advisory_xact_lock(h) from (select distinct hashtext(b) as h from unnest(${buckets}::text[]) as t(b) order by h) as locks`.execute(
        trx,
      );
    }
    for (const l of limits) {
      const state = await stateOf(trx, l.bucket, at - l.windowMs);
      if (state.count >= l.limit) return { full: { limit: l, state, retryAfter: retryAfterSeconds(state, l.windowMs, at) } };
    }
    const rows = await trx
      .insertInto("rate_events")
      .values(limits.map((l) => ({ bucket: l.bucket, at })))
      .returning("id")
      .execute();
    return {
      slot: new Slot(
        this,
        rows.map((r) => Number(r.id)),
      ),
    };
  }

  /** Deletes a slot's rows, and `bucket`'s whole window when given. */
  async forget(ids: readonly number[], bucket?: string): Promise<void> {
    if (ids.length === 0 && bucket === undefined) return;
    const remove = (db: Kysely<Database>) =>
      db
        .deleteFrom("rate_events")
        .where((eb) => eb.or([...(ids.length > 0 ? [eb("id", "in", ids)] : []), ...(bucket === undefined ? [] : [eb("bucket", "=", bucket)])]))
        .execute();
    if (this.dialect !== "postgres") {
      await remove(this.db);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await relaxedCommit(trx);
      await remove(trx);
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

/**
 * A slot taken and given back on every right password would add two waits for the disk to each sign-in;
 * a throttle's last events lost in a crash cost nothing worth them, so these commits do not wait for the
 * WAL flush (the data stays consistent, only the newest commits may be lost).
 */
async function relaxedCommit(trx: Kysely<Database>): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
}

/** Seconds until the window frees one slot (at least 1). */
export function retryAfterSeconds(state: WindowState, windowMs: number, now: number): number {
  if (state.oldest === null) return 1;
  return Math.max(1, Math.ceil((state.oldest + windowMs - now) / 1000));
}
