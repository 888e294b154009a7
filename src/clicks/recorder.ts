// Click recording: events are buffered and written in batches (one transaction per flush) together with
// links.click_count and the roll-ups (daily totals, daily and monthly breakdowns); click-limited links
// are counted atomically instead.
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Clock } from "../shared/clock.js";
import { type CountryResolver, describeUserAgent, referrerHost } from "./describe.js";

export interface ClickInput {
  linkId: string;
  at: number;
  userAgent: string;
  referer: string;
  ip: string;
  /** Value of the trusted country header, or null. */
  country: string | null;
  /** True when the click was already added to links.click_count atomically (click-limited links). */
  counted: boolean;
}

export const DIMENSIONS = ["country", "device", "os", "browser", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const MAX_BATCH = 2_000;
/** Events kept while the database is unreachable; beyond it the oldest are dropped (and logged). */
const MAX_BUFFER = 200_000;
const INSERT_CHUNK = 500;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function sortedByKey<V>(m: Map<string, V>): V[] {
  return [...m.keys()].sort().map((k) => m.get(k) as V);
}

export interface RecorderDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  countries: CountryResolver;
  flushMs: number;
  retentionDays: number;
}

export class ClickRecorder {
  private buffer: ClickInput[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: RecorderDeps) {}

  /** Buffers one click; never blocks the request. */
  record(input: ClickInput): void {
    this.buffer.push(input);
    if (this.buffer.length > MAX_BUFFER) {
      const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFER);
      this.deps.log.error({ dropped: dropped.length }, "click buffer full: oldest clicks dropped");
    }
    if (this.buffer.length >= MAX_BATCH) void this.flush();
    else if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.deps.flushMs);
    }
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Atomically counts a click on a click-limited link; false when the limit is already reached. */
  async countLimited(linkId: string, maxClicks: number): Promise<boolean> {
    const r = await this.deps.db
      .updateTable("links")
      .set((eb) => ({ click_count: eb("click_count", "+", 1) }))
      .where("id", "=", linkId)
      .where("click_count", "<", maxClicks)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Writes everything buffered so far; concurrent callers share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    this.flushing = this.writeBatches().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async writeBatches(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, MAX_BATCH);
      try {
        await this.write(batch);
      } catch (err) {
        // Keep the clicks for the next attempt; the database may be restarting.
        this.buffer.unshift(...batch);
        this.deps.log.error({ err, pending: this.buffer.length }, "click flush failed; will retry");
        if (!this.timer && !this.closed) {
          this.timer = setTimeout(() => {
            this.timer = null;
            void this.flush();
          }, Math.max(1000, this.deps.flushMs));
        }
        return;
      }
    }
  }

  private async write(batch: ClickInput[]): Promise<void> {
    const ids = [...new Set(batch.map((c) => c.linkId))];
    const rows = batch.map((c) => {
      const d = describeUserAgent(c.userAgent);
      return {
        link_id: c.linkId,
        at: c.at,
        country: this.deps.countries.resolve(c.country, c.ip),
        device: d.device,
        os: d.os,
        browser: d.browser,
        referrer: referrerHost(c.referer),
        is_bot: d.isBot ? 1 : 0,
        counted: c.counted,
      };
    });
    await this.deps.db.transaction().execute(async (trx) => {
      // Links deleted since the click are skipped (their clicks go with them).
      const existing = new Set<string>();
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        const found = await trx.selectFrom("links").select("id").where("id", "in", ids.slice(i, i + INSERT_CHUNK)).execute();
        for (const r of found) existing.add(r.id);
      }
      const live = rows.filter((r) => existing.has(r.link_id));
      if (live.length === 0) return;

      for (let i = 0; i < live.length; i += INSERT_CHUNK) {
        await trx
          .insertInto("clicks")
          .values(live.slice(i, i + INSERT_CHUNK).map(({ counted: _c, ...r }) => r))
          .execute();
      }

      const increments = new Map<string, number>();
      const daily = new Map<string, { link_id: string; day: string; clicks: number; bots: number }>();
      const breakdown = new Map<string, { link_id: string; day: string; dimension: string; value: string; clicks: number }>();
      const monthly = new Map<string, { link_id: string; month: string; dimension: string; value: string; clicks: number }>();
      for (const r of live) {
        if (!r.counted) increments.set(r.link_id, (increments.get(r.link_id) ?? 0) + 1);
        const day = dayOf(r.at);
        const dk = `${r.link_id}\u0000${day}`;
        const d = daily.get(dk) ?? { link_id: r.link_id, day, clicks: 0, bots: 0 };
        d.clicks++;
        d.bots += r.is_bot;
        daily.set(dk, d);
        for (const dim of DIMENSIONS) {
          const value = r[dim];
          const bk = `${dk}\u0000${dim}\u0000${value}`;
          const b = breakdown.get(bk) ?? { link_id: r.link_id, day, dimension: dim, value, clicks: 0 };
          b.clicks++;
          breakdown.set(bk, b);
          const month = day.slice(0, 7);
          const mk = `${r.link_id}\u0000${month}\u0000${dim}\u0000${value}`;
          const m = monthly.get(mk) ?? { link_id: r.link_id, month, dimension: dim, value, clicks: 0 };
          m.clicks++;
          monthly.set(mk, m);
        }
      }
      // Rows are written in key order so that concurrent flushes (several instances on one
      // PostgreSQL) lock them in the same order and cannot deadlock.
      for (const id of [...increments.keys()].sort()) {
        const n = increments.get(id) as number;
        await trx
          .updateTable("links")
          .set((eb) => ({ click_count: eb("click_count", "+", n) }))
          .where("id", "=", id)
          .execute();
      }
      const dailyRows = sortedByKey(daily);
      for (let i = 0; i < dailyRows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto("click_daily")
          .values(dailyRows.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) =>
            oc.columns(["link_id", "day"]).doUpdateSet({
              clicks: sql`click_daily.clicks + excluded.clicks`,
              bots: sql`click_daily.bots + excluded.bots`,
            }),
          )
          .execute();
      }
      const breakdownRows = sortedByKey(breakdown);
      for (let i = 0; i < breakdownRows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto("click_breakdown")
          .values(breakdownRows.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) =>
            oc.columns(["link_id", "dimension", "day", "value"]).doUpdateSet({ clicks: sql`click_breakdown.clicks + excluded.clicks` }),
          )
          .execute();
      }
      const monthlyRows = sortedByKey(monthly);
      for (let i = 0; i < monthlyRows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto("click_breakdown_month")
          .values(monthlyRows.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) =>
            oc.columns(["link_id", "dimension", "month", "value"]).doUpdateSet({ clicks: sql`click_breakdown_month.clicks + excluded.clicks` }),
          )
          .execute();
      }
    });
  }

  /** Deletes raw clicks past the retention period (roll-ups stay); 0 days keeps them forever. */
  async pruneRaw(): Promise<number> {
    if (this.deps.retentionDays <= 0) return 0;
    const before = this.deps.clock.now() - this.deps.retentionDays * 86_400_000;
    const r = await this.deps.db.deleteFrom("clicks").where("at", "<", before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Stops the timer and writes every buffered click (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
