// The click sink's two writers, each one transaction per batch with few statements: SQLite through
// prepared statements on the raw handle (synchronous, no query building per click; raw rows that share
// their values in one statement whatever their links, the others 50 to a statement), PostgreSQL through
// unnest() arrays (one statement per table, whatever the batch size).
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { type ClickRow, DIMENSIONS, type Group, GroupSet, describeBatch, rollUp } from "./click-batch.js";
import type { CountryResolver } from "./describe.js";
import type { ClickBatch } from "./click-buffer.js";
import { markPostgres, sqliteJournalMarker } from "./click-journal.js";

export interface ClickWriter {
  /** Writes one batch (SQLite: in transactions of whole links, resumed where it stopped on a retry); clicks of links deleted meanwhile are dropped (SQLite: by the next roll-up). */
  write(batch: ClickBatch): Promise<void>;
  /** Writes roll-ups held back by write() (SQLite); a no-op where write() already wrote them. */
  flushRollups(): Promise<void>;
  /** Folds raw clicks missing from the roll-ups (after a crash) into them. */
  recover(): Promise<void>;
  /** Releases what the writer holds (a worker thread); called after the last flush. */
  close?(): Promise<void>;
  /** Counts one click of a click-limited link if the limit allows (writers with a connection of their own). */
  countLimited?(linkId: string, maxClicks: number): Promise<boolean>;
}

/**
 * Roll-up groups held in memory before a roll-up is forced (bounds memory on a long-tailed flood),
 * and groups written per transaction (each holds SQLite's write lock for a few ms).
 */
const MAX_PENDING_GROUPS = 50_000;
const CHUNK_GROUPS = 250;
const RECOVERY_CHUNK = 50_000;
/** Links per monthly-compaction transaction, and transactions per roll-up (a big database's month is compacted over several). */
const COMPACT_LINKS = 500;
const COMPACT_CHUNKS_PER_ROLLUP = 20;
/** Raw click rows per transaction, about (a link's clicks are never split): a click-limit count waits for one at most. */
const RAW_CHUNK = 2_000;
/** Raw click rows per INSERT statement. */
const ROWS_PER_INSERT = 50;
/**
 * Rows that share their values are inserted as one JSON array of integers, each the link number and the
 * time's offset from the statement's base time: offset in the low OFFSET_BITS bits (70 minutes of
 * milliseconds), the link number above, within the 2^53 that a JSON number holds exactly.
 */
const OFFSET_BITS = 22;
const OFFSET_SPAN = 2 ** OFFSET_BITS;
const MAX_PACKED_NUM = 2 ** (53 - OFFSET_BITS);
/** A raw click row's columns, in the order the statements below bind them. */
const CLICK_COLUMNS = ["link_num", "at", "country", "device", "os", "browser", "referrer", "is_bot", "counted"] as const;
/** Staged rows moved into clicks per transaction (a click-limit count waits for one at most). */
const MOVE_CHUNK = 10_000;
/** A link with this many raw rows in a chunk writes them straight into clicks; fewer are staged. */
const DIRECT_MIN = 4;
const CLICK_VALUES = `(${CLICK_COLUMNS.map(() => "?").join(", ")})`;
/** Raw clicks with their link's id (clicks of deleted links are not returned). */
const SELECT_CLICKS = `SELECT c.id, l.id AS link_id, ${CLICK_COLUMNS.map((c) => `c.${c}`).join(", ")} FROM clicks c JOIN links l ON l.num = c.link_num`;

/**
 * Where the monthly breakdown rows stand (click_rollup_state): complete through month `through`; a
 * compaction of the months after it up to `to` has done the links up to `link`.
 */
interface Months {
  through: string;
  to: string | null;
  link: string | null;
}

/** "YYYY-MM" of the month before a "YYYY-MM". */
function monthBefore(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, "0")}`;
}

/** A roll-up being written: its groups in link order, the last click id they cover, and how far it got. */
interface Epoch {
  groups: Group[];
  upTo: number;
  done: number;
}

/**
 * SQLite: raw clicks are written with every batch. A link with a few clicks in a batch (most of a long
 * tail) has them appended to click_staging, a table with no index, and moved into clicks by the next
 * roll-up, MOVE_CHUNK rows per transaction: the clicks index then gets a roll-up interval's tail in a
 * few transactions, each of its pages written once per transaction instead of once per flush (on a
 * long tail a flush touched one index page per distinct link). A link with DIRECT_MIN clicks or more
 * has them written straight into clicks, its index entries neighbours. A moved row gets a click id
 * above the roll-up watermark, so a crash between the move and the roll-up is recovered like any raw
 * click not rolled up yet; recover() moves what is still staged first. Their roll-ups and their
 * links.click_count increments are held in memory and written every CLICK_ROLLUP_MS: one upsert per
 * distinct link, day and value per interval instead of per batch, which is what keeps a long tail of
 * links cheap. A roll-up is written in short transactions of whole links, in link order, each
 * recording how far it got in click_rollup_state, so a crash at any point loses nothing and adds
 * nothing twice: recover() folds in exactly the raw clicks the roll-ups do not hold yet.
 *
 * Monthly breakdown rows are not upserted with every roll-up: once clicks of a new month arrive, the
 * months before it are compacted from the daily rows, link range by link range, each transaction
 * recording how far it got. Roll-ups keep the months already compacted (for the links already done)
 * up to date, so a late click is counted in both, and statistics read months not yet compacted from
 * the daily rows (months_through).
 */
export class SqliteClickWriter implements ClickWriter {
  private s: SqliteStatements | null = null;
  private pending = new GroupSet();
  private epoch: Epoch | null = null;
  private rollupQueue: Promise<void> = Promise.resolve();
  private months: Months | null = null;
  /** The latest month of any click rolled up: the months before it are over. */
  private latestMonth = "";
  /** The last batch written to and how many of its rows (in link order) are committed. */
  private written: { seq: number; rows: number } | null = null;
  /** Records a batch's journal segment as committed, in the transaction of its chunk. */
  private readonly markJournal: ReturnType<typeof sqliteJournalMarker>;

  /**
   * `lock` runs a synchronous step alone on the connection: Kysely's connection mutex on the main
   * thread (so clicks never join, or roll back with, another transaction), a plain call in the worker.
   */
  constructor(
    private readonly lock: <T>(fn: () => T) => Promise<T>,
    private readonly handle: SQLite.Database,
    private readonly countries: CountryResolver,
  ) {
    this.markJournal = sqliteJournalMarker(handle);
  }

  /**
   * Writes the batch's raw rows in link order, in transactions of about RAW_CHUNK rows (whole links,
   * so each touches its own part of the clicks index), letting other work in between. A batch retried
   * after an error resumes after the last chunk committed.
   */
  async write(clicks: ClickBatch): Promise<void> {
    const s = this.statements();
    const { rows, rowValues, groups } = describeBatch(clicks, this.countries);
    let start = this.written?.seq === clicks.seq ? this.written.rows : 0;
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
      await this.lock(() => {
        s.raw(chunk, chunkValues, mark && (() => this.markJournal(mark, through)));
        // In the same synchronous step as the commit, so a roll-up never starts without these groups.
        for (const group of chunkGroups) this.pending.add(group);
        this.written = { seq: clicks.seq, rows: end };
      });
      start = end;
      g = gEnd;
      if (start < rows.length) await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.pending.size >= MAX_PENDING_GROUPS) await this.flushRollups();
  }

  /** Writes the held-back roll-ups and counts; calls queue behind each other. */
  flushRollups(): Promise<void> {
    const run = this.rollupQueue.then(() => this.writeRollups());
    this.rollupQueue = run.catch(() => undefined);
    return run;
  }

  private async writeRollups(): Promise<void> {
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
      await this.lock(() => s.rollups.immediate(e.groups.slice(e.done, end), e.upTo, end === e.groups.length, this.keepsMonth));
      e.done = end;
      // Lets the event loop (and other writers of the file) in between chunks.
      if (e.done < e.groups.length) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Moves the staged rows into clicks, MOVE_CHUNK (the oldest) per transaction, until none is left. */
  private async moveStaged(): Promise<void> {
    const s = this.statements();
    while ((await this.lock(() => s.move(MOVE_CHUNK))) === MOVE_CHUNK) await new Promise((resolve) => setImmediate(resolve));
  }

  /** The atomic click-limit count, on this writer's connection. */
  async countLimited(linkId: string, maxClicks: number): Promise<boolean> {
    const s = this.statements();
    return this.lock(() => s.countLimited.run(linkId, maxClicks).changes > 0);
  }

  /**
   * At start: the raw clicks that the roll-ups and counts do not hold (a crash came before they were
   * written). A roll-up a crash cut short is finished first, as the same roll-up, for the links it had
   * not reached; then everything after it.
   */
  async recover(): Promise<void> {
    await this.rollupQueue;
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

  /** Prepared on first use: the tables may not exist yet when the recorder is built (CLI migrate). */
  private statements(): SqliteStatements {
    return (this.s ??= sqliteStatements(this.handle));
  }
}

/** The end of a chunk of about `size` groups or rows (in link order) from `start` that does not split a link. */
function chunkEnd(items: { link_num: number }[], start: number, size: number): number {
  let end = Math.min(start + size, items.length);
  while (end < items.length && items[end]!.link_num === items[end - 1]!.link_num) end++;
  return end;
}

type SqliteStatements = ReturnType<typeof sqliteStatements>;
type RowStatements = ReturnType<typeof rowStatements>;

/** A raw click row's values at `at` in a statement's arguments, in CLICK_COLUMNS order (field by field: no keyed lookups per value). */
function putRow(args: unknown[], at: number, r: ClickRow): void {
  args[at] = r.link_num;
  args[at + 1] = r.at;
  args[at + 2] = r.country;
  args[at + 3] = r.device;
  args[at + 4] = r.os;
  args[at + 5] = r.browser;
  args[at + 6] = r.referrer;
  args[at + 7] = r.is_bot;
  args[at + 8] = r.counted;
}

/** The statements that insert raw rows into one table (clicks, or click_staging). */
function rowStatements(h: SQLite.Database, table: "clicks" | "click_staging") {
  const insert = `INSERT INTO ${table} (${CLICK_COLUMNS.join(", ")}) `;
  return {
    one: h.prepare(insert + "VALUES " + CLICK_VALUES),
    many: h.prepare(insert + "VALUES " + Array.from({ length: ROWS_PER_INSERT }, () => CLICK_VALUES).join(", ")),
    /** One row per integer of a JSON array (the last parameter): link number and offset from the base time (the first). */
    packed: h.prepare(
      insert +
        `SELECT j.value >> ${OFFSET_BITS}, ? + (j.value & ${OFFSET_SPAN - 1}), ${CLICK_COLUMNS.slice(2).map(() => "?").join(", ")} FROM json_each(?) AS j`,
    ),
  };
}

/** The writer's statements and its transactions: raw clicks, their move, and a chunk of roll-ups with counts and state. */
function sqliteStatements(handle: SQLite.Database) {
  const st = prepare(handle);
  const into = { clicks: rowStatements(handle, "clicks"), staging: rowStatements(handle, "click_staging") };
  const width = CLICK_COLUMNS.length;
  const args = new Array<unknown>(ROWS_PER_INSERT * width);
  const one = new Array<unknown>(width);
  const shared = new Array<unknown>(width);
  /**
   * Inserts rows alike but for their link and time with one statement: their values bound once, each
   * row one integer of a JSON array (link number and time offset). Rows that do not fit that (a group
   * spanning more than OFFSET_SPAN ms, a link number past MAX_PACKED_NUM) go to `rest`.
   */
  const insertPacked = (t: RowStatements, alike: ClickRow[], rest: ClickRow[]): void => {
    let base = Infinity;
    for (const r of alike) if (r.at < base) base = r.at;
    const packed: number[] = [];
    for (const r of alike) {
      const offset = r.at - base;
      if (offset < OFFSET_SPAN && r.link_num < MAX_PACKED_NUM && Number.isInteger(offset)) packed.push(r.link_num * OFFSET_SPAN + offset);
      else rest.push(r);
    }
    if (packed.length === 0) return;
    // In CLICK_COLUMNS order, the link number replaced by the base time, the JSON array last.
    putRow(shared, 0, alike[0] as ClickRow);
    shared[0] = base;
    shared.copyWithin(1, 2);
    shared[width - 1] = JSON.stringify(packed);
    t.packed.run(shared);
  };
  /**
   * Rows in link order, with their values' numbers: rows that share their values and `counted` are
   * inserted by one statement (each list in link order, so an index takes it in key order), the others
   * in statements of ROWS_PER_INSERT rows.
   */
  const insertRows = (t: RowStatements, rows: ClickRow[], rowValues: number[]): void => {
    const alike = new Map<number, ClickRow[]>();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as ClickRow;
      const k = (rowValues[i] as number) * 2 + (row.counted === 0 ? 0 : 1);
      const list = alike.get(k);
      if (list === undefined) alike.set(k, [row]);
      else list.push(row);
    }
    const rest: ClickRow[] = [];
    for (const list of alike.values()) {
      if (list.length === 1) rest.push(list[0] as ClickRow);
      else insertPacked(t, list, rest);
    }
    let i = 0;
    // Whole statements of ROWS_PER_INSERT rows (one call into SQLite each), then the rest one by one.
    for (; i + ROWS_PER_INSERT <= rest.length; i += ROWS_PER_INSERT) {
      for (let k = 0; k < ROWS_PER_INSERT; k++) putRow(args, k * width, rest[i + k] as ClickRow);
      t.many.run(args);
    }
    for (; i < rest.length; i++) {
      putRow(one, 0, rest[i] as ClickRow);
      t.one.run(one);
    }
  };
  /**
   * The clicks of a link with DIRECT_MIN or more rows go straight into clicks (its index entries are
   * neighbours: one page or a few), the others are staged until the next roll-up moves them.
   */
  const append = handle.transaction((rows: ClickRow[], rowValues: number[], alsoInTransaction?: () => void): void => {
    const direct: [ClickRow[], number[]] = [[], []];
    const staged: [ClickRow[], number[]] = [[], []];
    for (let i = 0; i < rows.length; ) {
      const end = chunkEnd(rows, i, 1);
      const to = end - i >= DIRECT_MIN ? direct : staged;
      for (let k = i; k < end; k++) {
        to[0].push(rows[k] as ClickRow);
        to[1].push(rowValues[k] as number);
      }
      i = end;
    }
    insertRows(into.clicks, ...direct);
    insertRows(into.staging, ...staged);
    alsoInTransaction?.();
  });
  const moveChunk = handle.transaction((limit: number): number => {
    const end = st.stagedChunkEnd.get(limit) as number | null;
    if (end === null) return 0;
    const moved = st.moveStaged.run(end).changes;
    st.deleteStaged.run(end);
    return moved;
  });
  /**
   * Without the foreign-key check: on a long tail of links it is a random read in the links index per
   * click. A link deleted since its clicks were taken is found by the roll-up instead, which deletes
   * those clicks (its other clicks went with the link).
   */
  const withoutForeignKeys = <T>(fn: () => T): T => {
    handle.pragma("foreign_keys = OFF");
    try {
      return fn();
    } finally {
      handle.pragma("foreign_keys = ON");
    }
  };
  /** Writes the rows of a batch's chunk, straight into clicks or staged (and whatever else must commit with them). */
  const raw = (rows: ClickRow[], rowValues: number[], alsoInTransaction?: () => void) =>
    withoutForeignKeys(() => append.immediate(rows, rowValues, alsoInTransaction));
  /** Moves the oldest `limit` staged rows into clicks; returns how many. */
  const move = (limit: number): number => withoutForeignKeys(() => moveChunk.immediate(limit));
  const rollups = handle.transaction((groups: Group[], upTo: number, final: boolean, keepsMonth: (linkId: string, month: string) => boolean) => {
    const live = new Set<string>();
    for (const [id, num] of new Map(groups.map((g) => [g.link_id, g.link_num]))) {
      if (st.linkExists.get(id) !== undefined) live.add(id);
      // Deleted since its clicks were taken: the raw clicks written after the link's deletion go too, and it gets no roll-ups.
      else st.deleteClicksOf.run(num);
    }
    const u = rollUp(groups, live, keepsMonth);
    for (const [id, n] of u.increments) st.increment.run(n, id);
    for (const d of u.daily) st.daily.run(d.link_id, d.day, d.clicks, d.bots);
    for (const d of u.breakdown) st.breakdown.run(d.link_id, d.day, d.dimension, d.value, d.clicks);
    for (const d of u.monthly) st.monthly.run(d.link_id, d.month, d.dimension, d.value, d.clicks);
    if (final) st.advance.run(upTo);
    else st.progress.run(upTo, groups[groups.length - 1]!.link_id);
  });
  /** The monthly rows of the next COMPACT_LINKS links; returns the last link done, or null when the compaction is complete. */
  const compact = handle.transaction((m: Months): string | null => {
    const ids = st.linksAfter.all(m.link ?? "", COMPACT_LINKS) as string[];
    const last = ids.length === COMPACT_LINKS ? (ids[ids.length - 1] as string) : null;
    // "YYYY-MM-32" sorts after every day of the month and before the next month's first.
    const range = { after: m.through === "" ? "" : `${m.through}-32`, before: `${m.to}-32` };
    for (const link of ids) st.compactLink.run({ link, ...range });
    if (last === null) st.monthsDone.run(m.to);
    else st.monthsProgress.run(m.to, last);
    return last;
  });
  return { ...st, raw, move, rollups, compact };
}

function prepare(h: SQLite.Database) {
  return {
    linkExists: h.prepare("SELECT 1 FROM links WHERE id = ?").pluck(),
    deleteClicksOf: h.prepare("DELETE FROM clicks WHERE link_num = ?"),
    /** Raw clicks after an id whose link is gone (written after its deletion, and a crash came before their roll-up). */
    deleteOrphansAfter: h.prepare("DELETE FROM clicks WHERE id > ? AND NOT EXISTS (SELECT 1 FROM links WHERE num = clicks.link_num)"),
    /** The last staged id of the oldest `limit` staged rows (null when none is staged). */
    stagedChunkEnd: h.prepare("SELECT max(id) FROM (SELECT id FROM click_staging ORDER BY id LIMIT ?)").pluck(),
    moveStaged: h.prepare(
      `INSERT INTO clicks (${CLICK_COLUMNS.join(", ")}) SELECT ${CLICK_COLUMNS.join(", ")} FROM click_staging WHERE id <= ?`,
    ),
    deleteStaged: h.prepare("DELETE FROM click_staging WHERE id <= ?"),
    lastClickId: h.prepare("SELECT coalesce(max(id), 0) FROM clicks").pluck(),
    increment: h.prepare("UPDATE links SET click_count = click_count + ? WHERE id = ?"),
    countLimited: h.prepare("UPDATE links SET click_count = click_count + 1 WHERE id = ? AND click_count < ?"),
    daily: h.prepare(
      "INSERT INTO click_daily (link_id, day, clicks, bots) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (link_id, day) DO UPDATE SET clicks = click_daily.clicks + excluded.clicks, bots = click_daily.bots + excluded.bots",
    ),
    breakdown: h.prepare(
      "INSERT INTO click_breakdown (link_id, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (link_id, dimension, day, value) DO UPDATE SET clicks = click_breakdown.clicks + excluded.clicks",
    ),
    monthly: h.prepare(
      "INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks",
    ),
    state: h.prepare("SELECT last_click_id AS last, epoch_to, epoch_link, months_through, compact_to, compact_link FROM click_rollup_state WHERE id = 1"),
    /** A roll-up is complete up to this click id. */
    advance: h.prepare("UPDATE click_rollup_state SET last_click_id = max(last_click_id, ?), epoch_to = NULL, epoch_link = NULL WHERE id = 1"),
    /** A roll-up up to a click id has written every link up to a link id. */
    progress: h.prepare("UPDATE click_rollup_state SET epoch_to = ?, epoch_link = ? WHERE id = 1"),
    linksAfter: h.prepare("SELECT id FROM links WHERE id > ? ORDER BY id LIMIT ?").pluck(),
    /** A link's monthly rows from its daily ones in a range of days (one primary-key seek per dimension, whatever its history). */
    compactLink: h.prepare(
      "INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) " +
        "SELECT link_id, substr(day, 1, 7), dimension, value, sum(clicks) FROM click_breakdown " +
        `WHERE link_id = :link AND dimension IN (${DIMENSIONS.map((d) => `'${d}'`).join(", ")}) AND day > :after AND day < :before ` +
        "GROUP BY dimension, substr(day, 1, 7), value " +
        "ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks",
    ),
    monthsProgress: h.prepare("UPDATE click_rollup_state SET compact_to = ?, compact_link = ? WHERE id = 1"),
    monthsDone: h.prepare("UPDATE click_rollup_state SET months_through = ?, compact_to = NULL, compact_link = NULL WHERE id = 1"),
    clicksAfter: h.prepare(`${SELECT_CLICKS} WHERE c.id > ? ORDER BY c.id LIMIT ?`),
    /** Clicks in an id range of the links after a link id (the part of an interrupted roll-up not written). */
    clicksOfLaterLinks: h.prepare(`${SELECT_CLICKS} WHERE c.id > ? AND c.id <= ? AND l.id > ? ORDER BY c.id LIMIT ?`),
  };
}

function column<T, K extends keyof T>(rows: T[], key: K): T[K][] {
  return rows.map((r) => r[key]);
}

/** PostgreSQL: everything in one transaction per batch (several instances write; no watermark to share). */
export class PostgresClickWriter implements ClickWriter {
  constructor(
    private readonly db: Db,
    private readonly countries: CountryResolver,
  ) {}

  async flushRollups(): Promise<void> {}

  async recover(): Promise<void> {}

  async write(clicks: ClickBatch): Promise<void> {
    const b = describeBatch(clicks, this.countries);
    // Links whose click_count this batch raises; the others (click-limited links, counted as served) are only read.
    const raising = new Set<string>();
    for (const g of b.groups) if (g.clicks > g.counted) raising.add(g.link_id);
    const raised = b.linkIds.filter((id) => raising.has(id));
    const readOnly = b.linkIds.filter((id) => !raising.has(id));
    await this.db.transaction().execute(async (trx) => {
      if (clicks.journal) await markPostgres(trx, clicks.journal);
      // Locks the links to update in id order (the lock an UPDATE takes; concurrent writers cannot
      // deadlock), and only keeps the others from being deleted: FOR KEY SHARE does not block the
      // click-limit count, which would otherwise wait for this whole transaction on every visit. A
      // link deleted meanwhile is not returned and its clicks are skipped: clicks have no foreign key
      // here (migration 006), these locks are what keeps them from naming a deleted link.
      const lock = async (ids: string[], mode: "NO KEY UPDATE" | "KEY SHARE") =>
        ids.length === 0 ? [] : (await sql<{ id: string }>`SELECT id FROM links WHERE id = ANY(${ids}::text[]) ORDER BY id FOR ${sql.raw(mode)}`.execute(trx)).rows;
      const live = new Set([...(await lock(raised, "NO KEY UPDATE")), ...(await lock(readOnly, "KEY SHARE"))].map((r) => r.id));
      if (live.size === 0) return;
      const rows = live.size === b.linkIds.length ? b.rows : b.rows.filter((r) => live.has(r.link_id));
      await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted)
        SELECT * FROM unnest(${column(rows, "link_num")}::bigint[], ${column(rows, "at")}::bigint[], ${column(rows, "country")}::text[],
          ${column(rows, "device")}::text[], ${column(rows, "os")}::text[], ${column(rows, "browser")}::text[],
          ${column(rows, "referrer")}::text[], ${column(rows, "is_bot")}::int[], ${column(rows, "counted")}::int[])`.execute(trx);
      const u = rollUp(b.groups, live);
      if (u.increments.length > 0) {
        await sql`UPDATE links SET click_count = links.click_count + v.n
          FROM unnest(${u.increments.map((i) => i[0])}::text[], ${u.increments.map((i) => i[1])}::bigint[]) AS v(id, n)
          WHERE links.id = v.id`.execute(trx);
      }
      await sql`INSERT INTO click_daily (link_id, day, clicks, bots)
        SELECT * FROM unnest(${column(u.daily, "link_id")}::text[], ${column(u.daily, "day")}::text[],
          ${column(u.daily, "clicks")}::bigint[], ${column(u.daily, "bots")}::bigint[])
        ON CONFLICT (link_id, day) DO UPDATE SET clicks = click_daily.clicks + excluded.clicks, bots = click_daily.bots + excluded.bots`.execute(trx);
      await sql`INSERT INTO click_breakdown (link_id, day, dimension, value, clicks)
        SELECT * FROM unnest(${column(u.breakdown, "link_id")}::text[], ${column(u.breakdown, "day")}::text[],
          ${column(u.breakdown, "dimension")}::text[], ${column(u.breakdown, "value")}::text[], ${column(u.breakdown, "clicks")}::bigint[])
        ON CONFLICT (link_id, dimension, day, value) DO UPDATE SET clicks = click_breakdown.clicks + excluded.clicks`.execute(trx);
      await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks)
        SELECT * FROM unnest(${column(u.monthly, "link_id")}::text[], ${column(u.monthly, "month")}::text[],
          ${column(u.monthly, "dimension")}::text[], ${column(u.monthly, "value")}::text[], ${column(u.monthly, "clicks")}::bigint[])
        ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks`.execute(trx);
    });
  }
}
