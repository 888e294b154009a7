// Sealed click batches waiting for the writer, oldest first, with memory bounded and data not: past
// CLICK_MEMORY_MAX clicks a batch whose journal segment holds it whole is kept there alone (spilled)
// and read back when the writer reaches it. Only a batch the journal does not hold (the journal off, or
// a segment a write failure left torn: its disk full) is ever dropped, and each drop is counted and logged.
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../storage/schema.js";
import type { ClickJournal } from "./click-journal.js";
import { type ClickBatch, FIELD, type JournalMark, WIDTH } from "./click-buffer.js";

/** A sealed batch that only its journal segment holds: what the queue keeps of it in memory. */
interface Spilled {
  spilled: true;
  journal: JournalMark;
  length: number;
  /** When its first click came. */
  firstAt: number;
  /** Its link numbers, hashed into a bitset: a read skips the segments that cannot hold its links. */
  nums: Uint32Array;
}

type Queued = ClickBatch | Spilled;

/** Bits of a spilled batch's link-number set: 512 bytes, whatever the batch. */
const NUM_BITS = 4096;

function numBitset(batch: ClickBatch): Uint32Array {
  const bits = new Uint32Array(NUM_BITS / 32);
  for (let o = FIELD.linkNum; o < batch.fields.length; o += WIDTH) {
    const bit = (batch.fields[o] as number) % NUM_BITS;
    bits[bit >>> 5]! |= 1 << (bit & 31);
  }
  return bits;
}

function mayHold(bits: Uint32Array, nums: ReadonlySet<number>): boolean {
  for (const n of nums) if ((bits[(n % NUM_BITS) >>> 5]! & (1 << ((n % NUM_BITS) & 31))) !== 0) return true;
  return false;
}

function isSpilled(q: Queued): q is Spilled {
  return "spilled" in q;
}

export interface SealedQueueDeps {
  db: Kysely<Database>;
  log: Logger;
  journal: ClickJournal | null;
  /** Sealed clicks held in memory at most (CLICK_MEMORY_MAX). */
  memoryMax: number;
  /** The recorder's counters: clicks dropped, and written (a spilled batch's clicks of links deleted since count as written, as the writers skip them). */
  counts: { written: number; dropped: number };
}

export class SealedQueue {
  private readonly items: Queued[] = [];
  /** Clicks of the batches in memory, and of those only their journal segment holds. */
  private inMemory = 0;
  private spilledClicks = 0;
  /** Batches whose journal segment is not whole: memory is all they have. */
  private readonly unjournaled = new WeakSet<ClickBatch>();

  constructor(private readonly deps: SealedQueueDeps) {}

  /** Clicks queued, in memory or not. */
  get clicks(): number {
    return this.inMemory + this.spilledClicks;
  }

  /** Clicks queued that only the journal holds. */
  get spilled(): number {
    return this.spilledClicks;
  }

  get length(): number {
    return this.items.length;
  }

  /** When the oldest queued click came, null when none is queued. */
  oldestAt(): number | null {
    const first = this.items[0];
    if (first === undefined) return null;
    return isSpilled(first) ? first.firstAt : (first.fields[FIELD.at] ?? null);
  }

  /** Queues a sealed batch; `journaled`: its journal segment holds it whole. */
  push(batch: ClickBatch, journaled: boolean): void {
    if (!journaled) this.unjournaled.add(batch);
    this.items.push(batch);
    this.inMemory += batch.length;
    this.bound();
  }

  /**
   * Keeps the clicks in memory within memoryMax. The newest batches go to the journal first (the
   * writer reaches them last), and the oldest, which may be on its way to the writer, stays. Batches
   * the journal does not hold are dropped instead, oldest first.
   */
  private bound(): void {
    while (this.inMemory > this.deps.memoryMax) {
      let spill = -1;
      let drop = -1;
      for (let i = this.items.length - 1; i >= 1 && spill < 0; i--) {
        const q = this.items[i] as Queued;
        if (isSpilled(q)) continue;
        if (this.unjournaled.has(q)) drop = i;
        else spill = i;
      }
      if (spill >= 1) {
        const b = this.items[spill] as ClickBatch;
        this.items[spill] = { spilled: true, journal: b.journal as JournalMark, length: b.length, firstAt: b.fields[FIELD.at] as number, nums: numBitset(b) };
        this.inMemory -= b.length;
        this.spilledClicks += b.length;
      } else if (drop >= 1) {
        const [b] = this.items.splice(drop, 1) as [ClickBatch];
        this.inMemory -= b.length;
        this.dropped(b.length, b.journal, "click buffer full and the click journal does not hold these clicks: dropped");
      } else return;
    }
  }

  private dropped(n: number, mark: JournalMark | undefined, msg: string): void {
    this.deps.counts.dropped += n;
    this.deps.journal?.done(mark);
    this.deps.log.error({ dropped: n, droppedTotal: this.deps.counts.dropped, segment: mark?.segment }, msg);
  }

  /**
   * The oldest batches, at least one (none when nothing is queued) and then up to `maxClicks` clicks in
   * all, or exactly `count` of them (a retry writes the same batches again). Spilled ones are read back
   * from their journal segments and take their places in memory; a spilled segment that is gone
   * (deleted by hand) is skipped, its clicks counted as dropped and logged.
   */
  async head(maxClicks: number, count?: number): Promise<ClickBatch[]> {
    const run: ClickBatch[] = [];
    let clicks = 0;
    for (let i = 0; i < this.items.length && (count === undefined ? run.length === 0 || clicks + this.items[i]!.length <= maxClicks : run.length < count);) {
      const q = this.items[i] as Queued;
      const batch = isSpilled(q) ? await this.load(i, q) : q;
      if (batch === null) continue;
      run.push(batch);
      clicks += batch.length;
      i++;
    }
    return run;
  }

  /** Reads back the spilled batch at `i`, in its place; null when its segment is gone (then no longer queued). */
  private async load(i: number, q: Spilled): Promise<ClickBatch | null> {
    let batch: ClickBatch;
    try {
      batch = await (this.deps.journal as ClickJournal).load(this.deps.db, q.journal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      this.items.splice(i, 1);
      this.spilledClicks -= q.length;
      this.dropped(q.length, undefined, "click journal segment missing: its clicks are dropped");
      return null;
    }
    this.items[i] = batch;
    this.spilledClicks -= q.length;
    this.inMemory += batch.length;
    this.deps.counts.written += q.length - batch.length;
    return batch;
  }

  /** The oldest `n` batches are written. */
  shift(n: number): void {
    for (const b of this.items.splice(0, n) as ClickBatch[]) this.inMemory -= b.length;
  }

  /**
   * Each queued batch that may hold clicks of `nums` (null: of any link), oldest first, with its segment:
   * spilled ones read back from the journal synchronously (a read of clicks not written yet is one
   * synchronous step), as batches whose link ids are those of `ids` (the only clicks a read takes; without
   * `ids`, empty: the reader knows its links by number).
   */
  *holding(nums: ReadonlySet<number> | null, ids: ReadonlyMap<number, string> | null): Generator<{ segment: number | undefined; batch: ClickBatch }> {
    for (const q of this.items) {
      if (!isSpilled(q)) yield { segment: q.journal?.segment, batch: q };
      else if (this.deps.journal && (nums === null || mayHold(q.nums, nums))) {
        const seg = this.deps.journal.read(q.journal);
        const links = new Array<string>(seg.length);
        for (let i = 0; i < seg.length; i++) links[i] = ids?.get(seg.fields[i * WIDTH + FIELD.linkNum] as number) ?? "";
        yield { segment: q.journal.segment, batch: { seq: 0, strings: seg.strings, links, fields: seg.fields, length: seg.length } };
      }
    }
  }
}
