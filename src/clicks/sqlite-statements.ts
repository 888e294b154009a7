// SQLite's click-writer statements and transactions, prepared once on the raw better-sqlite3 handle:
// raw rows (straight into clicks, or staged), the move of staged rows, a chunk of roll-ups with its
// counts and watermark, and a chunk of the monthly compaction. No query is built per click.
import type SQLite from "better-sqlite3";
import { BREAKDOWNS, CLICK_COLUMNS, type ClickRow, type Group } from "./click-groups.js";
import { rollUp } from "./rollup-rows.js";
import type { LimitCount } from "./limit-counts.js";

/** Links per monthly-compaction transaction. */
const COMPACT_LINKS = 500;
/**
 * Rows that share their values are inserted as one JSON array of integers, each the link number, the
 * time's offset from the statement's base time and the new-visitor flag: the flag in the lowest bit, the
 * offset in the OFFSET_BITS above it (70 minutes of milliseconds), the link number above, within the 2^53
 * that a JSON number holds exactly.
 */
const OFFSET_BITS = 22;
const OFFSET_SPAN = 2 ** OFFSET_BITS;
const MAX_PACKED_NUM = 2 ** (53 - OFFSET_BITS - 1);
/** links.last_click_at raised to a click's time bound twice (it only moves forward; NULL >= x is not true). */
const LAST_CLICK_AT = "last_click_at = CASE WHEN last_click_at >= ? THEN last_click_at ELSE ? END";
/** The columns after link_num and at, in a packed statement: bound once, but for new_visitor (from each integer). */
const PACKED_SHARED = CLICK_COLUMNS.slice(2);
/** A link with this many raw rows in a chunk writes them straight into clicks; fewer are staged. */
const DIRECT_MIN = 4;
const CLICK_VALUES = `(${CLICK_COLUMNS.map(() => "?").join(", ")})`;
/** Raw clicks with their link's id (clicks of deleted links are not returned). */
const SELECT_CLICKS = `SELECT c.id, l.id AS link_id, ${CLICK_COLUMNS.map((c) => `c.${c}`).join(", ")} FROM clicks c JOIN links l ON l.num = c.link_num`;

/**
 * Where the monthly breakdown rows stand (click_rollup_state): complete through month `through`; a
 * compaction of the months after it up to `to` has done the links up to `link`.
 */
export interface Months {
  through: string;
  to: string | null;
  link: string | null;
}

/** The end of a chunk of about `size` groups or rows (in link order) from `start` that does not split a link. */
export function chunkEnd(items: { link_num: number }[], start: number, size: number): number {
  let end = Math.min(start + size, items.length);
  while (end < items.length && items[end]!.link_num === items[end - 1]!.link_num) end++;
  return end;
}

export type SqliteStatements = ReturnType<typeof sqliteStatements>;
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
  args[at + 9] = r.destination;
  args[at + 10] = r.new_visitor;
  args[at + 11] = r.qr;
  args[at + 12] = r.region;
  args[at + 13] = r.city;
  args[at + 14] = r.referrer_url;
  args[at + 15] = r.utm;
}

/** The statements that insert raw rows into one table (clicks, or click_staging). */
function rowStatements(h: SQLite.Database, table: "clicks" | "click_staging") {
  const insert = `INSERT INTO ${table} (${CLICK_COLUMNS.join(", ")}) `;
  return {
    one: h.prepare(insert + "VALUES " + CLICK_VALUES),
    /** One row per integer of a JSON array (the last parameter): link number, offset from the base time (the first) and new-visitor flag. */
    packed: h.prepare(
      insert +
        `SELECT j.value >> ${OFFSET_BITS + 1}, ? + ((j.value >> 1) & ${OFFSET_SPAN - 1}), ` +
        `${PACKED_SHARED.map((c) => (c === "new_visitor" ? "j.value & 1" : "?")).join(", ")} FROM json_each(?) AS j`,
    ),
  };
}

/**
 * The transaction that appends a batch chunk's raw rows: a link's rows straight into clicks or staged,
 * rows alike packed into one statement.
 */
function rawAppender(handle: SQLite.Database) {
  const into = { clicks: rowStatements(handle, "clicks"), staging: rowStatements(handle, "click_staging") };
  const width = CLICK_COLUMNS.length;
  const one = new Array<unknown>(width);
  const row = new Array<unknown>(width);
  const shared = new Array<unknown>(width - 1);
  /**
   * Inserts rows alike but for their link, time and new-visitor flag with one statement: their values bound
   * once, each row one integer of a JSON array. Rows that do not fit that (a group
   * spanning more than OFFSET_SPAN ms, a link number past MAX_PACKED_NUM) go to `rest`.
   */
  const insertPacked = (t: RowStatements, alike: ClickRow[], rest: ClickRow[]): void => {
    let base = Infinity;
    for (const r of alike) if (r.at < base) base = r.at;
    const packed: number[] = [];
    for (const r of alike) {
      const offset = r.at - base;
      if (offset < OFFSET_SPAN && r.link_num < MAX_PACKED_NUM && Number.isInteger(offset)) packed.push((r.link_num * OFFSET_SPAN + offset) * 2 + r.new_visitor);
      else rest.push(r);
    }
    if (packed.length === 0) return;
    // The base time, the shared columns but new_visitor, the JSON array last.
    putRow(row, 0, alike[0] as ClickRow);
    shared[0] = base;
    let k = 1;
    for (let c = 2; c < width; c++) if (CLICK_COLUMNS[c] !== "new_visitor") shared[k++] = row[c];
    shared[k] = JSON.stringify(packed);
    t.packed.run(shared);
  };
  /**
   * Rows in link order, with their values' numbers: rows that share their values and `counted` are
   * inserted by one statement (each list in link order, so an index takes it in key order), the others
   * one by one (50 rows to a statement measured the same: docs/scaling.md).
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
    for (const row of rest) {
      putRow(one, 0, row);
      t.one.run(one);
    }
  };
  /**
   * The clicks of a link with DIRECT_MIN or more rows go straight into clicks (its index entries are
   * neighbours: one page or a few), the others are staged until the next roll-up moves them.
   */
  return handle.transaction((rows: ClickRow[], rowValues: number[], alsoInTransaction?: () => void): void => {
    alsoInTransaction?.();
    const direct: [ClickRow[], number[]] = [[], []];
    const staged: [ClickRow[], number[]] = [[], []];
    for (let i = 0; i < rows.length;) {
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
  });
}

/** The writer's statements and its transactions: raw clicks, their move, and a chunk of roll-ups with counts and state. */
export function sqliteStatements(handle: SQLite.Database) {
  const st = prepare(handle);
  const append = rawAppender(handle);
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
  /** Writes the rows of a batch's chunk, straight into clicks or staged, after `alsoInTransaction` (what must commit with them: it may still set the rows' new_visitor). */
  const raw = (rows: ClickRow[], rowValues: number[], alsoInTransaction?: () => void) =>
    withoutForeignKeys(() => append.immediate(rows, rowValues, alsoInTransaction));
  /** Moves the oldest `limit` staged rows into clicks; returns how many. */
  const move = (limit: number): number => withoutForeignKeys(() => moveChunk.immediate(limit));
  const rollups = handle.transaction((groups: Group[], upTo: number, final: boolean, keepsMonth: (linkId: string, month: string) => boolean) => {
    const live = new Map<string, string | null>();
    // Links are read and counted by their number (the table's rowid: one lookup instead of the id's index, then the row).
    const nums = new Map(groups.map((g) => [g.link_id, g.link_num]));
    for (const [id, num] of nums) {
      const link = st.linkOwner.get(num) as { owner_id: string | null } | undefined;
      if (link !== undefined) live.set(id, link.owner_id);
      // Deleted since its clicks were taken: the raw clicks written after the link's deletion go too, and it gets no roll-ups.
      else st.deleteClicksOf.run(num);
    }
    const u = rollUp(groups, live, keepsMonth);
    for (const [id, n, at] of u.increments) st.increment.run(n, at, at, nums.get(id));
    for (const d of u.daily) st.daily.run(d.link_id, d.day, d.clicks, d.bots, d.visitors, d.qr);
    for (const d of u.hourly) st.hourly.run(d.link_id, d.hour, d.clicks, d.bots, d.visitors, d.qr);
    for (const d of u.breakdown) st.breakdown.run(d.link_id, d.day, d.dimension, d.value, d.clicks, d.visitors);
    for (const d of u.monthly) st.monthly.run(d.link_id, d.month, d.dimension, d.value, d.clicks, d.visitors);
    for (const d of u.ownerDaily) st.ownerDaily.run(d.owner_id, d.day, d.clicks, d.bots, d.visitors, d.qr);
    for (const d of u.ownerHourly) st.ownerHourly.run(d.owner_id, d.hour, d.clicks, d.bots, d.visitors, d.qr);
    for (const d of u.ownerBreakdown) st.ownerBreakdown.run(d.owner_id, d.day, d.dimension, d.value, d.clicks, d.visitors);
    for (const d of u.ownerMonthly) st.ownerMonthly.run(d.owner_id, d.month, d.dimension, d.value, d.clicks, d.visitors);
    if (final) st.advance.run(upTo);
    else st.progress.run(upTo, groups[groups.length - 1]!.link_id);
  });
  /** The monthly rows of the next COMPACT_LINKS links; returns the last link done, or null when the compaction is complete. */
  const compact = handle.transaction((m: Months): string | null => {
    const ids = st.linksAfter.all(m.link ?? "", COMPACT_LINKS) as string[];
    const last = ids.length === COMPACT_LINKS ? (ids[ids.length - 1] as string) : null;
    // "YYYY-MM-32" sorts after every day of the month and before the next month's first.
    const range = { after: m.through === "" ? "" : `${m.through}-32`, before: `${m.to}-32` };
    const months = { after: m.through, to: m.to };
    for (const link of ids) {
      st.compactLink.run({ link, ...range });
      st.compactOwnerLink.run({ link, ...months });
    }
    if (last === null) st.monthsDone.run(m.to);
    else st.monthsProgress.run(m.to, last);
    return last;
  });
  /** Click-limit counts in one transaction, each seeing the ones before it: whether each was counted. */
  const counting = handle.transaction((counts: LimitCount[]): boolean[] => counts.map((c) => st.countOne.run(c.at, c.at, c.linkId, c.maxClicks).changes > 0));
  const countLimited = (counts: LimitCount[]): boolean[] => counting.immediate(counts);
  return { ...st, raw, move, rollups, compact, countLimited };
}

/** A roll-up's summed columns: a row's and a breakdown's. */
const TOTALS = ["clicks", "bots", "visitors", "qr"];
const PAIR = ["clicks", "visitors"];

/** A roll-up's ON CONFLICT on its key: the new row's sums added to the stored row's. */
function addOnConflict(table: string, key: string, sums: string[]): string {
  return ` ON CONFLICT (${key}) DO UPDATE SET ${sums.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(", ")}`;
}

/** A roll-up row's upsert, its values bound in the order of `cols`. */
function upsert(h: SQLite.Database, table: string, cols: string[], key: string, sums: string[]) {
  return h.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})${addOnConflict(table, key, sums)}`);
}

function prepare(h: SQLite.Database) {
  return {
    linkOwner: h.prepare("SELECT owner_id FROM links WHERE num = ?"),
    deleteClicksOf: h.prepare("DELETE FROM clicks WHERE link_num = ?"),
    /** Raw clicks after an id whose link is gone (written after its deletion, and a crash came before their roll-up). */
    deleteOrphansAfter: h.prepare("DELETE FROM clicks WHERE id > ? AND NOT EXISTS (SELECT 1 FROM links WHERE num = clicks.link_num)"),
    /** The last staged id of the oldest `limit` staged rows (null when none is staged). */
    stagedChunkEnd: h.prepare("SELECT max(id) FROM (SELECT id FROM click_staging ORDER BY id LIMIT ?)").pluck(),
    moveStaged: h.prepare(`INSERT INTO clicks (${CLICK_COLUMNS.join(", ")}) SELECT ${CLICK_COLUMNS.join(", ")} FROM click_staging WHERE id <= ?`),
    deleteStaged: h.prepare("DELETE FROM click_staging WHERE id <= ?"),
    lastClickId: h.prepare("SELECT coalesce(max(id), 0) FROM clicks").pluck(),
    /** Adds clicks (n, then the latest one's time twice, then the link number); last_click_at only moves forward (NULL >= x is not true). */
    increment: h.prepare(`UPDATE links SET click_count = click_count + ?, ${LAST_CLICK_AT} WHERE num = ?`),
    /** Counts one click of a click-limited link: its time twice, the link id, its limit. */
    countOne: h.prepare(`UPDATE links SET click_count = click_count + 1, ${LAST_CLICK_AT} WHERE id = ? AND click_count < ?`),
    daily: upsert(h, "click_daily", ["link_id", "day", ...TOTALS], "link_id, day", TOTALS),
    hourly: upsert(h, "click_hourly", ["link_id", "hour", ...TOTALS], "link_id, hour", TOTALS),
    breakdown: upsert(h, "click_breakdown", ["link_id", "day", "dimension", "value", ...PAIR], "link_id, dimension, day, value", PAIR),
    ownerDaily: upsert(h, "owner_daily", ["owner_id", "day", ...TOTALS], "owner_id, day", TOTALS),
    ownerHourly: upsert(h, "owner_hourly", ["owner_id", "hour", ...TOTALS], "owner_id, hour", TOTALS),
    ownerBreakdown: upsert(h, "owner_breakdown", ["owner_id", "day", "dimension", "value", ...PAIR], "owner_id, dimension, day, value", PAIR),
    monthly: upsert(h, "click_breakdown_month", ["link_id", "month", "dimension", "value", ...PAIR], "link_id, dimension, month, value", PAIR),
    ownerMonthly: upsert(h, "owner_breakdown_month", ["owner_id", "month", "dimension", "value", ...PAIR], "owner_id, dimension, month, value", PAIR),
    state: h.prepare("SELECT last_click_id AS last, epoch_to, epoch_link, months_through, compact_to, compact_link FROM click_rollup_state WHERE id = 1"),
    /** A roll-up is complete up to this click id. */
    advance: h.prepare("UPDATE click_rollup_state SET last_click_id = max(last_click_id, ?), epoch_to = NULL, epoch_link = NULL WHERE id = 1"),
    /** A roll-up up to a click id has written every link up to a link id. */
    progress: h.prepare("UPDATE click_rollup_state SET epoch_to = ?, epoch_link = ? WHERE id = 1"),
    linksAfter: h.prepare("SELECT id FROM links WHERE id > ? ORDER BY id LIMIT ?").pluck(),
    /** A link's monthly rows from its daily ones in a range of days (one primary-key seek per dimension, whatever its history). */
    compactLink: h.prepare(
      "INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks, visitors) " +
        "SELECT link_id, substr(day, 1, 7), dimension, value, sum(clicks), sum(visitors) FROM click_breakdown " +
        `WHERE link_id = :link AND dimension IN (${BREAKDOWNS.map((d) => `'${d}'`).join(", ")}) AND day > :after AND day < :before ` +
        "GROUP BY dimension, substr(day, 1, 7), value" +
        addOnConflict("click_breakdown_month", "link_id, dimension, month, value", PAIR),
    ),
    /** A link's monthly rows just compacted (months after :after up to :to), added to its owner's. */
    compactOwnerLink: h.prepare(
      "INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors) " +
        "SELECT l.owner_id, m.month, m.dimension, m.value, m.clicks, m.visitors FROM click_breakdown_month m JOIN links l ON l.id = m.link_id " +
        "WHERE m.link_id = :link AND l.owner_id IS NOT NULL AND m.month > :after AND m.month <= :to" +
        addOnConflict("owner_breakdown_month", "owner_id, dimension, month, value", PAIR),
    ),
    monthsProgress: h.prepare("UPDATE click_rollup_state SET compact_to = ?, compact_link = ? WHERE id = 1"),
    monthsDone: h.prepare("UPDATE click_rollup_state SET months_through = ?, compact_to = NULL, compact_link = NULL WHERE id = 1"),
    clicksAfter: h.prepare(`${SELECT_CLICKS} WHERE c.id > ? ORDER BY c.id LIMIT ?`),
    /** Clicks in an id range of the links after a link id (the part of an interrupted roll-up not written). */
    clicksOfLaterLinks: h.prepare(`${SELECT_CLICKS} WHERE c.id > ? AND c.id <= ? AND l.id > ? ORDER BY c.id LIMIT ?`),
  };
}
