// SQLite's click writer: a batch's raw rows in transactions of whole links through prepared statements
// on the raw handle (sqlite-statements.ts), the click-limit count on the same connection, and the
// roll-ups handed to SqliteRollups, which holds them back and writes them every CLICK_ROLLUP_MS.
import type SQLite from "better-sqlite3";
import { type ClickRow, type Group, describeBatch } from "./click-groups.js";
import type { ClickBatch } from "./click-buffer.js";
import { sqliteJournalMarker } from "./click-journal.js";
import type { ClickWriter, HeldBack } from "./click-writer.js";
import type { CountryResolver } from "./describe.js";
import type { LimitCount } from "./limit-counts.js";
import { type Lock, SqliteRollups } from "./sqlite-rollups.js";
import { type SqliteStatements, chunkEnd, sqliteStatements } from "./sqlite-statements.js";
import { SqliteVisitors, batchSpan, keysFor } from "./visitors.js";
import { type StoredChunk, type StoredListener, eventIdPrefix } from "./stored.js";

/** Roll-up groups held in memory before a roll-up is forced (bounds memory on a long-tailed flood). */
const MAX_PENDING_GROUPS = 50_000;
/** Raw click rows per transaction, about (a link's clicks are never split): a click-limit count waits for one at most. */
const RAW_CHUNK = 2_000;

/**
 * Raw clicks are written with every batch. A link with a few clicks in a batch (most of a long tail)
 * has them appended to click_staging, a table with no index, and moved into clicks by the next
 * roll-up, a chunk per transaction: the clicks index then gets a roll-up interval's tail in a few
 * transactions, each of its pages written once per transaction instead of once per flush (on a long
 * tail a flush touched one index page per distinct link). A link with more clicks has them written
 * straight into clicks, its index entries neighbours. A moved row gets a click id above the roll-up
 * watermark, so a crash between the move and the roll-up is recovered like any raw click not rolled
 * up yet; recover() moves what is still staged first.
 */
export class SqliteClickWriter implements ClickWriter {
  private s: SqliteStatements | null = null;
  private v: SqliteVisitors | null = null;
  private readonly rollups: SqliteRollups;
  /** The last batch written to and how many of its rows (in link order) are committed. */
  private written: { seq: number; rows: number } | null = null;
  /** Records a batch's journal segment as committed, in the transaction of its chunk. */
  private readonly markJournal: ReturnType<typeof sqliteJournalMarker>;
  /** The "stored" listeners' steps (the stream outbox), run in each chunk's transaction (stored.ts). */
  private readonly stored: ((chunk: StoredChunk) => void)[];

  /**
   * `lock` runs a synchronous step alone on the connection: Kysely's connection mutex on the main
   * thread (so clicks never join, or roll back with, another transaction), a plain call in the worker.
   * `stored`: what hears of each chunk in its transaction (src/click-listeners.ts; none in tools and tests).
   */
  constructor(
    private readonly lock: Lock,
    private readonly handle: SQLite.Database,
    private readonly countries: CountryResolver,
    stored: readonly StoredListener[] = [],
  ) {
    this.rollups = new SqliteRollups(lock, () => this.statements());
    this.markJournal = sqliteJournalMarker(handle);
    this.stored = stored.map((l) => l.sqlite(handle));
  }

  /**
   * Writes the batch's raw rows in link order, in transactions of about RAW_CHUNK rows (whole links,
   * so each touches its own part of the clicks index), letting other work in between. A batch retried
   * after an error resumes after the last chunk committed.
   */
  async write(clicks: ClickBatch): Promise<void> {
    const s = this.statements();
    const visitors = (this.v ??= new SqliteVisitors(this.handle));
    const { days, latest } = batchSpan(clicks);
    // The salts of new days are written under the lock (once a day); known ones are in memory.
    const salts = visitors.hasSalts(days) ? visitors.salts : await this.lock(() => visitors.saltsFor(days, latest));
    const described = describeBatch(clicks, this.countries, keysFor(clicks, salts));
    const { rows, rowValues, groups } = described;
    let start = this.written?.seq === clicks.seq ? this.written.rows : 0;
    const prefix = eventIdPrefix(clicks.journal);
    // Groups come in link order too: those of the links already written were merged with them.
    let g = 0;
    const linkBefore = (i: number) => (rows[i - 1] as ClickRow).link_num;
    if (start > 0) while (g < groups.length && (groups[g] as Group).link_num <= linkBefore(start)) g++;
    while (start < rows.length) {
      const end = chunkEnd(rows, start, RAW_CHUNK);
      let gEnd = g;
      while (gEnd < groups.length && (groups[gEnd] as Group).link_num <= linkBefore(end)) gEnd++;
      const chunk = rows.slice(start, end);
      const chunkValues = rowValues.slice(start, end);
      const chunkGroups = groups.slice(g, gEnd);
      const mark = clicks.journal;
      // The click journal learns in the chunk's own transaction how far its segment is committed.
      const through = end === rows.length ? null : linkBefore(end);
      const first = start;
      await this.lock(() => {
        s.raw(chunk, chunkValues, () => {
          // In the rows' transaction, before they are inserted: whether each is its visitor's first of the day.
          visitors.mark(described, first, end);
          if (mark) this.markJournal(mark, through);
          if (this.stored.length > 0) {
            const stored: StoredChunk = { rows: chunk, first, prefix };
            for (const step of this.stored) step(stored);
          }
        });
        visitors.committed();
        // In the same synchronous step as the commit, so a roll-up never starts without these groups.
        for (const group of chunkGroups) this.rollups.add(group);
        this.written = { seq: clicks.seq, rows: end };
      });
      start = end;
      g = gEnd;
      if (start < rows.length) await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.rollups.size >= MAX_PENDING_GROUPS) await this.flushRollups();
  }

  /** Writes the held-back roll-ups and counts; calls queue behind each other. */
  flushRollups(): Promise<void> {
    return this.rollups.flush();
  }

  /** The groups of these links held back from the roll-ups, with the roll-up state they complement. */
  heldBack(linkNums: number[] | null): Promise<HeldBack> {
    return this.lock(() => this.rollups.heldBack(linkNums));
  }

  /** The atomic click-limit counts, in one transaction on this writer's connection. */
  async countLimited(counts: LimitCount[]): Promise<boolean[]> {
    const s = this.statements();
    return this.lock(() => s.countLimited(counts));
  }

  /** At start: roll-ups for the raw clicks a crash left out of them. */
  recover(): Promise<void> {
    return this.rollups.recover();
  }

  /** Prepared on first use: the tables may not exist yet when the recorder is built (CLI migrate). */
  private statements(): SqliteStatements {
    return (this.s ??= sqliteStatements(this.handle));
  }
}
