// Sliding-window counters kept in the database, so throttles hold across restarts and instances.
import type { Db } from "./db.js";

export interface WindowState {
  count: number;
  /** Epoch ms of the oldest event still inside the window, or null when empty. */
  oldest: number | null;
}

export class RateEvents {
  constructor(private readonly db: Db) {}

  async state(bucket: string, since: number): Promise<WindowState> {
    const row = await this.db
      .selectFrom("rate_events")
      .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("at").as("oldest")])
      .where("bucket", "=", bucket)
      .where("at", ">", since)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
  }

  async record(bucket: string, at: number): Promise<void> {
    await this.db.insertInto("rate_events").values({ bucket, at }).execute();
  }

  /**
   * Takes one of `limit` slots of the window for an attempt whose outcome is not known yet: the attempt
   * is recorded first and counted after, so concurrent attempts cannot all see a free slot (of N+1 at
   * once, the last to be recorded sees N+1). Over the limit, the record is removed again and the
   * window's state returned. The caller removes the record (`remove`) when the attempt is not to count.
   */
  async take(bucket: string, since: number, limit: number, at: number): Promise<{ id: number } | { full: WindowState }> {
    const { id } = await this.db.insertInto("rate_events").values({ bucket, at }).returning("id").executeTakeFirstOrThrow();
    const state = await this.state(bucket, since);
    if (state.count <= limit) return { id: Number(id) };
    await this.remove(Number(id));
    return { full: { count: state.count - 1, oldest: state.oldest } };
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
