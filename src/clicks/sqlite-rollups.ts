// SQLite's held-back roll-ups and their crash recovery: the groups of the clicks written since the last
// roll-up (in memory), the roll-up that writes them with links.click_count in short transactions of
// whole links (each recording its progress in click_rollup_state), the move of staged raw rows into
// clicks that goes with it, the monthly compaction, and recover(), which folds in at start exactly
// the raw clicks that a crash left out of the roll-ups.
import type { ClickRow, Group } from "./click-groups.js";
import { GroupSet } from "./group-set.js";
import type { HeldBack } from "./click-writer.js";
import { type Months, type SqliteStatements, chunkEnd } from "./sqlite-statements.js";
import { monthBefore } from "./rollup-rows.js";

const CHUNK_GROUPS = 250;
const RECOVERY_CHUNK = 50_000;
/** Monthly-compaction transactions per roll-up (a big database's month is compacted over several). */
const COMPACT_CHUNKS_PER_ROLLUP = 20;
/** Staged rows moved into clicks per transaction (a click-limit count waits for one at most). */
const MOVE_CHUNK = 10_000;

/** A roll-up being written: its groups in link order, the last click id they cover, and how far it got. */
interface Epoch {
  groups: Group[];
  upTo: number;
  done: number;
}

/** A roll-up state (click_rollup_state's watermark and progress) as one comparable string. */
export function rollupStateKey(st: { last: number | bigint; epoch_to: number | bigint | null; epoch_link: string | null }): string {
  return `${st.last}/${st.epoch_to ?? ""}/${st.epoch_link ?? ""}`;
}

/** Runs a synchronous step alone on the connection (see SqliteClickWriter). */
export type Lock = <T>(fn: () => T) => Promise<T>;

/**
 * The roll-ups and links.click_count increments of the raw clicks written, held in memory and written
 * every CLICK_ROLLUP_MS: one upsert per distinct link, day and value per interval instead of per batch,
 * which is what keeps a long tail of links cheap. A roll-up is written in short transactions of whole
 * links, in link order, each recording how far it got in click_rollup_state, so a crash at any point
 * loses nothing and adds nothing twice: recover() folds in exactly the raw clicks the roll-ups do not
 * hold yet.
 *
 * Monthly breakdown rows are not upserted with every roll-up: once clicks of a new month arrive, the
 * months before it are compacted from the daily rows, link range by link range, each transaction
 * recording how far it got. Roll-ups keep the months already compacted (for the links already done)
 * up to date, so a late click is counted in both, and statistics read months not yet compacted from
 * the daily rows (months_through).
 */
export class SqliteRollups {
  private pending = new GroupSet();
  private epoch: Epoch | null = null;
  private queue: Promise<void> = Promise.resolve();
  private months: Months | null = null;
  /** The latest month of any click rolled up: the months before it are over. */
  private latestMonth = "";

  constructor(
    private readonly lock: Lock,
    private readonly statements: () => SqliteStatements,
  ) {}

  /** Distinct groups held for the next roll-up. */
  get size(): number {
    return this.pending.size;
  }

  /** Holds a group of committed raw clicks for the next roll-up (call in the same synchronous step as their commit). */
  add(group: Group): void {
    this.pending.add(group);
  }

  /**
   * The groups of these links' clicks that are written raw but not rolled up yet (held for the next
   * roll-up, or in the part of the roll-up being written not committed yet), with the roll-up state
   * they complement: a reader that finds the same state in its own snapshot adds them to what it read.
   * Call in one synchronous step with the connection (the state and the groups must go together).
   */
  heldBack(linkNums: number[] | null): HeldBack {
    const st = this.statements().state.get() as { last: number; epoch_to: number | null; epoch_link: string | null };
    const want = linkNums === null ? null : new Set(linkNums);
    const groups: Group[] = [];
    if (want === null) for (const g of this.pending.all()) groups.push({ ...g });
    else for (const num of want) for (const g of this.pending.of(num)) groups.push({ ...g });
    const e = this.epoch;
    if (e !== null) for (let i = e.done; i < e.groups.length; i++) if (want === null || want.has(e.groups[i]!.link_num)) groups.push({ ...e.groups[i]! });
    return { state: rollupStateKey(st), groups };
  }

  /** Writes the held-back roll-ups and counts; calls queue behind each other. */
  flush(): Promise<void> {
    const run = this.queue.then(() => this.write());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    if (this.epoch === null && this.pending.size > 0) {
      // The bulk of the staged rows a chunk at a time, then the rest with the roll-up's snapshot in one
      // step: every click up to upTo then has its group in the epoch, and every group its clicks there.
      await this.moveStaged();
      const s = this.statements();
      await this.lock(() => {
        s.move(Number.MAX_SAFE_INTEGER);
        this.epoch = { groups: this.pending.byLinkId(), upTo: Number(s.lastClickId.get()), done: 0 };
        this.pending = new GroupSet();
      });
    }
    if (this.epoch !== null) {
      await this.finishEpoch(this.epoch);
      this.epoch = null;
    }
    await this.compactMonths();
  }

  /** Whether roll-ups write a month's monthly rows for a link: compacted months, and the one being compacted for the links done. */
  private keepsMonth = (linkId: string, month: string): boolean => {
    const m = this.monthState();
    return month <= m.through || (m.to !== null && m.link !== null && month <= m.to && linkId <= m.link);
  };

  /** Compacts the months before the latest one seen into monthly rows, a few transactions per roll-up. */
  private async compactMonths(): Promise<void> {
    const m = this.monthState();
    if (m.to === null) {
      if (this.latestMonth === "" || monthBefore(this.latestMonth) <= m.through) return;
      m.to = monthBefore(this.latestMonth);
      m.link = null;
    }
    const s = this.statements();
    for (let i = 0; i < COMPACT_CHUNKS_PER_ROLLUP && m.to !== null; i++) {
      await this.lock(() => {
        const last = s.compact.immediate(m);
        // After the commit: from now on roll-ups keep these links' compacted months up to date.
        if (last !== null) m.link = last;
        else {
          m.through = m.to as string;
          m.to = null;
          m.link = null;
        }
      });
      if (m.to !== null) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private monthState(): Months {
    if (this.months === null) {
      const st = this.statements().state.get() as { months_through: string | null; compact_to: string | null; compact_link: string | null };
      this.months = { through: st.months_through ?? "", to: st.compact_to, link: st.compact_to === null ? null : st.compact_link };
    }
    return this.months;
  }

  /** Writes the rest of a roll-up, a few hundred groups (whole links) per transaction; resumable after an error. */
  private async finishEpoch(e: Epoch): Promise<void> {
    const s = this.statements();
    for (const g of e.groups) if (g.day.slice(0, 7) > this.latestMonth) this.latestMonth = g.day.slice(0, 7);
    while (e.done < e.groups.length) {
      const end = chunkEnd(e.groups, e.done, CHUNK_GROUPS);
      await this.lock(() => {
        s.rollups.immediate(e.groups.slice(e.done, end), e.upTo, end === e.groups.length, this.keepsMonth);
        // In the same step as the commit: heldBack() never counts these groups both stored and held.
        e.done = end;
      });
      // Lets the event loop (and other writers of the file) in between chunks.
      if (e.done < e.groups.length) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Moves the staged rows into clicks, MOVE_CHUNK (the oldest) per transaction, until none is left. */
  private async moveStaged(): Promise<void> {
    const s = this.statements();
    while ((await this.lock(() => s.move(MOVE_CHUNK))) === MOVE_CHUNK) await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * At start: the raw clicks that the roll-ups and counts do not hold (a crash came before they were
   * written). A roll-up a crash cut short is finished first, as the same roll-up, for the links it had
   * not reached; then everything after it.
   */
  async recover(): Promise<void> {
    await this.queue;
    const s = this.statements();
    await this.moveStaged();
    const state = s.state.get() as { last: number; epoch_to: number | null; epoch_link: string | null } | undefined;
    let from = Number(state?.last ?? 0);
    // Clicks of links deleted before their roll-up: the roll-up would have deleted them.
    await this.lock(() => s.deleteOrphansAfter.run(from));
    if (state?.epoch_to != null) {
      const upTo = Number(state.epoch_to);
      const rest = this.groupsOf(from, (after, n) => s.clicksOfLaterLinks.all(after, upTo, state.epoch_link, n));
      if (rest.groups.length > 0) await this.finishEpoch({ groups: rest.groups, upTo, done: 0 });
      else await this.lock(() => s.advance.run(upTo));
      from = upTo;
    }
    const after = this.groupsOf(from, (id, n) => s.clicksAfter.all(id, n));
    if (after.groups.length > 0) await this.finishEpoch({ groups: after.groups, upTo: after.lastId, done: 0 });
  }

  /** Groups of the raw clicks `read` returns after a click id, in id order, RECOVERY_CHUNK rows at a time. */
  private groupsOf(start: number, read: (afterId: number, n: number) => unknown[]): { groups: Group[]; lastId: number } {
    const groups = new GroupSet();
    let lastId = start;
    for (;;) {
      const rows = read(lastId, RECOVERY_CHUNK) as (ClickRow & { id: number })[];
      if (rows.length === 0) break;
      groups.addRows(rows);
      lastId = Number(rows[rows.length - 1]!.id);
    }
    return { groups: groups.byLinkId(), lastId };
  }
}
