// Click recording: events are buffered (click-buffer.ts) and written in batches, one per flush (on
// SQLite in transactions of whole links). links.click_count and the roll-ups (daily totals, daily
// and monthly breakdowns) are written every CLICK_ROLLUP_MS on SQLite (reads add what is held back:
// click-reads.ts) and with each batch on PostgreSQL (reads add this process's clicks whose batch is
// not committed yet: uncommitted()).
// Click-limited links are counted atomically as they are served instead.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type SQLite from "better-sqlite3";
import type { Logger } from "pino";
import type { Db, Dialect } from "../storage/db.js";
import { deleteClicksBefore, dropMonthsBefore } from "../storage/click-partitions.js";
import type { DatabaseConfig } from "../config.js";
import type { Clock } from "../shared/clock.js";
import type { CountryResolver } from "./describe.js";
import type { ClickWriter, HeldBack, Uncommitted } from "./click-writer.js";
import { PostgresClickWriter } from "./pg-writer.js";
import { SqliteClickWriter } from "./sqlite-writer.js";
import { WorkerClickWriter } from "./worker-writer.js";
import { type ClickBatch, ClickBatchBuilder, type ClickInput } from "./click-buffer.js";
import { groupsOf } from "./click-groups.js";
import type { ClickJournal } from "./click-journal.js";
import type { LinkKey } from "./click-reads.js";
import { SealedQueue } from "./sealed-queue.js";
import { type LimitCount, countsPerTurn } from "./limit-counts.js";
import type { StoredListeners } from "./stored.js";

/** What record() takes; declared beside the buffer that stores it, so the buffer needs nothing from here. */
export type { ClickInput };

/**
 * Clicks per batch at most: past it a batch is sealed and handed to the writer before the flush
 * interval ends. Sealing and posting a batch, and the garbage it leaves, are work on the event loop in
 * one piece: at 45,000 clicks/s, 10,000-click batches put one hot link's p99 at 2.9x the bare
 * baseline's, 2,500-click batches at 1.5x, with the same CPU per answer and PostgreSQL's CPU per
 * Zipf click unchanged (bench/README.md).
 */
export const MAX_BATCH = 2_500;
/**
 * PostgreSQL, when batches queue up: clicks written in one transaction at most. A Zipf load over
 * 1,000,000 links has 0.46 distinct links per click in 2,500 clicks and 0.32 in 25,000, and the
 * statements' cost follows the distinct links (bench/README.md, bench:clicks).
 */
export const MERGE_MAX = 25_000;
/**
 * Roll-ups take at most this share of the time: under load the interval between two stretches to
 * the last roll-up's duration / share (more clicks per distinct link and interval, so fewer row
 * updates per click), up to ROLLUP_MAX_MS.
 */
const ROLLUP_SHARE = 0.05;
const ROLLUP_MAX_MS = 60_000;
/** Raw clicks deleted per retention transaction (a short hold of SQLite's write lock). */
const PRUNE_CHUNK = 10_000;
/** While click writes keep failing, one log line per this long. */
const FAILURE_LOG_MS = 60_000;

export interface RecorderDeps {
  db: Db;
  /** PostgreSQL keeps raw clicks by month (storage/click-partitions.ts): retention drops whole months. */
  dialect: Dialect;
  /** The raw SQLite handle behind db (SQLite only): batches are written through prepared statements. */
  sqlite: SQLite.Database | null;
  /** When set, a worker thread writes the clicks to this database on connections of its own. */
  workerDatabase: DatabaseConfig | null;
  geoipDb: string | null;
  clock: Clock;
  log: Logger;
  countries: CountryResolver;
  flushMs: number;
  /** SQLite: how often held-back roll-ups are written. */
  rollupMs: number;
  retentionDays: number;
  /** Buffered clicks survive a killed process (servers; null for CLI commands, which record none). */
  journal: ClickJournal | null;
  /** Sealed clicks held in memory at most (CLICK_MEMORY_MAX); past it the journal alone holds them (sealed-queue.ts). */
  memoryMax: number;
  /** The writer of another process (WORKERS=N on SQLite: the primary's, src/cluster/remote-writer.ts) instead of one of this process. */
  writer?: ClickWriter;
  /** What the writers publish each stored chunk to, in its transaction (stored.ts); needed for a writer thread. */
  stored?: StoredListeners;
}

/** A worker thread when configured (CLICK_WRITER=worker), else the same writers on the main thread. */
function writerFor(deps: RecorderDeps): ClickWriter {
  if (deps.writer) return deps.writer;
  const stored = deps.stored?.listeners ?? [];
  if (deps.workerDatabase) {
    if (!deps.stored) throw new Error("a click writer thread needs its entry (RecorderDeps.stored)");
    return new WorkerClickWriter({ database: deps.workerDatabase, geoipDb: deps.geoipDb }, deps.stored.thread);
  }
  if (!deps.sqlite) return new PostgresClickWriter(deps.db, deps.countries, stored);
  const db = deps.db;
  return new SqliteClickWriter((fn) => db.connection().execute(async () => fn()), deps.sqlite, deps.countries, stored);
}

/** The wait before the next periodic roll-up after one that took `tookMs`: CLICK_ROLLUP_MS unless roll-ups are slow. */
export function nextRollupMs(rollupMs: number, tookMs: number): number {
  return Math.max(rollupMs, Math.min(ROLLUP_MAX_MS, tookMs / ROLLUP_SHARE));
}

export class ClickRecorder {
  /** The batch being filled, and full batches waiting for the writer (oldest first, in memory or in the journal alone). */
  private open: ClickBatchBuilder;
  private readonly sealed: SealedQueue;
  /** When the open batch's first click came (the oldest unwritten click when nothing is sealed). */
  private openSince = 0;
  private timer: NodeJS.Timeout | null = null;
  private rollupTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  /** settle(): the write under way, and the one callers during it wait for. */
  private settling: Promise<void> | null = null;
  private settleNext: Promise<void> | null = null;
  /** Writes are failing: since when, and when that was last logged. */
  private failing: { since: number; logged: number } | null = null;
  /** How many batches the last write that failed took (a retry takes the same). */
  private retry: number | null = null;
  private closed = false;
  private readonly writer: ClickWriter;
  /** The writer's click-limit counts, a turn's together (limit-counts.ts); null where the main pool counts (PostgreSQL). */
  private readonly countOne: ((count: LimitCount) => Promise<boolean>) | null;
  /** Clicks since start: recorded (answered), written to the database, dropped (memory full, and no journal to hold them: metrics). */
  readonly counts = { recorded: 0, written: 0, dropped: 0 };
  /**
   * PostgreSQL without a click journal (CLICK_JOURNAL=off, CLI commands): batches are still numbered
   * and their commits recorded in a click_journal row of this id (as the journal's are), for
   * uncommitted(); the row goes at close. Null where the journal numbers them, or on SQLite.
   */
  private readonly marks: { journal: string; next: number; used: boolean } | null;

  /** The writer this recorder writes through (WORKERS=N on SQLite: the primary lends it to its workers). */
  get sink(): ClickWriter {
    return this.writer;
  }

  constructor(private readonly deps: RecorderDeps) {
    this.writer = writerFor(deps);
    this.countOne = this.writer.countLimited ? countsPerTurn(this.writer.countLimited.bind(this.writer)) : null;
    this.sealed = new SealedQueue({ db: deps.db, log: deps.log, journal: deps.journal, memoryMax: deps.memoryMax, counts: this.counts });
    this.marks = deps.sqlite === null && deps.journal === null ? { journal: randomBytes(12).toString("base64url"), next: 1, used: false } : null;
    this.open = this.newBatch();
  }

  /** Starts the periodic roll-ups (the context's start(); a recorder never started rolls up at close alone). */
  start(): void {
    if (!this.rollupTimer && !this.closed) this.scheduleRollup(this.deps.rollupMs);
  }

  /** The next periodic roll-up, `ms` from now; each schedules the next from its own duration. */
  private scheduleRollup(ms: number): void {
    this.rollupTimer = setTimeout(() => {
      const started = performance.now();
      this.writer
        .flushRollups()
        .catch((err: unknown) => this.deps.log.error({ err }, "roll-up write failed; will retry"))
        .finally(() => {
          if (!this.closed) this.scheduleRollup(nextRollupMs(this.deps.rollupMs, performance.now() - started));
        });
    }, ms);
    this.rollupTimer.unref();
  }

  /**
   * At start: roll-ups for raw clicks a crash left out of them, then the clicks a killed process left
   * in its journal (after: their roll-ups are held back by the writer like any new batch's).
   */
  async recover(): Promise<void> {
    await this.writer.recover();
    const replayed = await this.deps.journal?.replay(this.deps.db, (batch) => this.writer.write(batch));
    if (replayed) this.deps.log.info({ clicks: replayed }, "clicks of a killed process replayed from its journal");
  }

  /** Runs `answer` once the clicks recorded so far are journaled (at the end of this event-loop turn), at once without a journal. */
  afterJournal(answer: () => void): void {
    if (this.deps.journal) this.deps.journal.afterAppend(answer);
    else answer();
  }

  /** afterJournal as a promise. */
  journaled(): Promise<void> {
    return new Promise((resolve) => this.afterJournal(resolve));
  }

  /** Buffers one click; never blocks the request. */
  record(input: ClickInput): void {
    this.counts.recorded++;
    if (this.open.length === 0) this.openSince = input.at;
    this.open.push(input);
    this.deps.journal?.pending(this.open);
    if (this.open.length >= MAX_BATCH) {
      this.seal();
      void this.flushRaw();
    } else if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flushRaw();
      }, this.deps.flushMs);
    }
  }

  get pending(): number {
    return this.sealed.clicks + this.open.length;
  }

  /**
   * Clicks not yet written and when the oldest of them came, null when none (the operator console's
   * health, /metrics, /readyz); of them, `spilled` are held by the journal alone; `journalBytes`: the
   * journal's segments of every click not written yet; `dropped`: clicks dropped since start.
   */
  backlog(): { pending: number; oldestAt: number | null; spilled: number; journalBytes: number; dropped: number } {
    const oldestAt = this.sealed.oldestAt() ?? (this.open.length > 0 ? this.openSince : null);
    return { pending: this.pending, oldestAt, spilled: this.sealed.spilled, journalBytes: this.deps.journal?.bytes ?? 0, dropped: this.counts.dropped };
  }

  /**
   * Client addresses go with the clicks to the writer, which turns each into a visitor key (visitors.ts)
   * and a country; they are never stored (the journal's segment files hold them until their batch commits).
   */
  private newBatch(): ClickBatchBuilder {
    return new ClickBatchBuilder();
  }

  private seal(): void {
    if (this.open.length === 0) return;
    const batch = this.open.seal();
    let journaled = false;
    if (this.deps.journal) {
      const sealed = this.deps.journal.seal(this.open);
      batch.journal = sealed.mark;
      journaled = sealed.whole;
    } else if (this.marks) {
      batch.journal = { journal: this.marks.journal, segment: this.marks.next++ };
      this.marks.used = true;
    }
    this.open = this.newBatch();
    this.sealed.push(batch, journaled);
  }

  /** Atomically counts a click on a click-limited link, now (links.last_click_at too); false when the limit is already reached. */
  async countLimited(linkId: string, maxClicks: number): Promise<boolean> {
    const at = this.deps.clock.now();
    // With a writer thread, it does this too: the main thread never waits for SQLite's write lock.
    if (this.countOne) return this.countOne({ linkId, maxClicks, at });
    const r = await this.deps.db
      .updateTable("links")
      .set((eb) => ({ click_count: eb("click_count", "+", 1), last_click_at: sql<number>`CASE WHEN last_click_at >= ${at} THEN last_click_at ELSE ${at} END` }))
      .where("id", "=", linkId)
      .where("click_count", "<", maxClicks)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The writer's held-back roll-up groups of these links (null: every link's; SQLite), or null where the writer holds none back in memory. */
  heldBack(linkNums: number[] | null): Promise<HeldBack> | null {
    return this.writer.heldBack?.(linkNums) ?? null;
  }

  /**
   * PostgreSQL (null on SQLite): the clicks of these links (null: of every link) that this process answered and that are not
   * committed yet, described into groups by the segment their batch commits as (see Uncommitted). Every
   * batch not yet done is in `sealed` (the first one possibly inside the writer, or waiting for a retry)
   * and the rest is in the open batch, which will be sealed as the next segment. Reads are rare and
   * recording is not: the work is done here, one scan of the buffered clicks' link numbers, and only
   * the matching clicks are described. In one synchronous step: nothing is sealed or done meanwhile.
   */
  uncommitted(links: LinkKey[] | null): Uncommitted | null {
    if (this.deps.sqlite !== null) return null;
    const journal = this.deps.journal?.id ?? this.marks?.journal;
    if (journal === undefined) return null;
    const ids = links === null ? null : new Map(links.map((l) => [l.num, l.id]));
    const nums = ids === null ? null : new Set(ids.keys());
    const batches: Uncommitted["batches"] = [];
    const add = (segment: number | undefined, clicks: ClickBatch) => {
      const groups = groupsOf(clicks, nums, this.deps.countries);
      if (groups.length > 0) batches.push({ segment: segment ?? 0, groups });
    };
    for (const { segment, batch } of this.sealed.holding(nums, ids)) add(segment, batch);
    add(this.deps.journal?.openSegment ?? this.marks?.next, this.open.view());
    return { journal, batches };
  }

  /** Writes everything buffered so far, roll-ups included (statistics are then current). */
  async flush(): Promise<void> {
    await this.flushRaw();
    await this.writer.flushRollups();
  }

  /**
   * flush() for readers that order by stored counts (the links list by clicks or last click, a new click
   * limit): callers during a run share the next one, which starts after it, so every click served before
   * the call is counted and concurrent callers cost one write, not one each.
   */
  settle(): Promise<void> {
    if (this.settleNext) return this.settleNext;
    if (!this.settling) return (this.settling = this.flush().finally(() => (this.settling = null)));
    const next = this.settling
      .catch(() => undefined)
      .then(() => {
        this.settleNext = null;
        return (this.settling = this.flush().finally(() => (this.settling = null)));
      });
    return (this.settleNext = next);
  }

  /** Writes the buffered clicks, leaving the roll-ups to their schedule (an import pacing itself on the writer). */
  async writeBuffered(): Promise<void> {
    await this.flushRaw();
  }

  /** Writes the buffered clicks; concurrent callers share one write. */
  private async flushRaw(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.seal();
    if (this.sealed.length === 0) return;
    this.flushing = this.writeBatches().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async writeBatches(): Promise<void> {
    for (;;) {
      let run: ClickBatch[];
      try {
        // A writer that takes several batches at once gets what is queued, up to MERGE_MAX clicks; a
        // retry writes the same batches (a commit whose answer was lost is then recognised by its mark).
        run = await this.sealed.head(this.writer.writeMany ? MERGE_MAX : 1, this.retry ?? undefined);
        if (run.length === 0) return;
        this.retry = run.length;
        if (run.length === 1) await this.writer.write(run[0] as ClickBatch);
        else await this.writer.writeMany!(run);
        this.retry = null;
      } catch (err) {
        // Keep the clicks for the next attempt; the database may be restarting. Logged when it starts
        // failing and then once a minute, not at every retry.
        const now = Date.now();
        if (this.failing === null || now - this.failing.logged >= FAILURE_LOG_MS) {
          this.deps.log.error(
            { err, pending: this.pending },
            this.failing === null ? "click flush failed; clicks are kept and retried" : "click flush still failing",
          );
          this.failing = { since: this.failing?.since ?? now, logged: now };
        }
        if (!this.timer && !this.closed) {
          this.timer = setTimeout(
            () => {
              this.timer = null;
              void this.flushRaw();
            },
            Math.max(1000, this.deps.flushMs),
          );
        }
        return;
      }
      this.sealed.shift(run.length);
      for (const batch of run) {
        this.counts.written += batch.length;
        this.deps.journal?.done(batch.journal);
      }
      if (this.failing !== null) {
        this.deps.log.warn({ failedForMs: Date.now() - this.failing.since, pending: this.pending }, "clicks are written again");
        this.failing = null;
      }
    }
  }

  /**
   * Deletes raw clicks past the retention period (roll-ups stay); 0 days keeps them forever. PostgreSQL drops the
   * months wholly past it, then deletes what is left before the limit by time (storage/click-partitions.ts). SQLite
   * deletes the oldest first, in id order (clicks are stored in time order; no index on the time is kept).
   */
  async pruneRaw(): Promise<number> {
    if (this.deps.retentionDays <= 0) return 0;
    const before = this.deps.clock.now() - this.deps.retentionDays * 86_400_000;
    const db = this.deps.db;
    if (this.deps.dialect === "postgres") return (await dropMonthsBefore(db, before)) + (await deleteClicksBefore(db, before, PRUNE_CHUNK));
    let deleted = 0;
    for (;;) {
      const oldest = await db.selectFrom("clicks").select(["id", "at"]).orderBy("id").limit(1).executeTakeFirst();
      if (!oldest || Number(oldest.at) >= before) return deleted;
      const r = await db
        .deleteFrom("clicks")
        .where("id", "<", Number(oldest.id) + PRUNE_CHUNK)
        .where("at", "<", before)
        .executeTakeFirst();
      deleted += Number(r.numDeletedRows);
    }
  }

  /** Stops the timer and writes every buffered click (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.rollupTimer) clearTimeout(this.rollupTimer);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    await this.writer.close?.();
    await this.deps.journal?.close(this.deps.db);
    if (this.marks?.used) await this.deps.db.deleteFrom("click_journal").where("journal", "=", this.marks.journal).execute();
  }
}
