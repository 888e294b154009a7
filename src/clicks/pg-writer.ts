// PostgreSQL's click writer: each batch in one transaction of unnest() statements (one per table,
// whatever the batch size), its links locked in id order so that several instances never deadlock;
// under load a long tail's roll-up groups wait in click_pending for the periodic roll-up (any
// instance's), which deletes them and writes their roll-ups in one transaction. Also their read.
import { type Transaction, sql } from "kysely";
import type { Database } from "../storage/schema.js";
import type { Db } from "../storage/db.js";
import { type ClickRow, type Group, GroupSet, describeBatch, rollUp } from "./click-batch.js";
import type { ClickBatch } from "./click-buffer.js";
import type { LinkKey } from "./click-reads.js";
import type { ClickWriter } from "./click-writer.js";
import type { CountryResolver } from "./describe.js";

/** Batches of this many clicks or more send a long tail's clicks to click_pending; smaller ones (light traffic) are written whole. */
const PENDING_MIN_BATCH = 1_000;
/** A link with this many clicks in such a batch has them written and rolled up with the batch; fewer wait in click_pending. */
const DIRECT_MIN = 4;
/** Pending groups rolled up per roll-up transaction. */
const MOVE_CHUNK = 10_000;
/** The advisory lock that lets one instance at a time roll pending groups up (their order of row locks is then one). */
const MOVE_LOCK = 0x736e6970; // "snip"
const GROUP_COLUMNS = ["link_num", "day", "country", "device", "os", "browser", "referrer", "is_bot", "clicks", "counted"] as const;

type Trx = Transaction<Database>;

function column<T, K extends keyof T>(rows: T[], key: K): T[K][] {
  return rows.map((r) => r[key]);
}

/**
 * Locks links in id order: those whose click_count a write raises FOR NO KEY UPDATE (the lock an UPDATE
 * takes; concurrent writers cannot deadlock), the others FOR KEY SHARE, which only keeps them from being
 * deleted and does not block the click-limit count (it would otherwise wait for the whole transaction
 * on every visit). A link deleted meanwhile is not returned and its clicks are skipped: clicks have no
 * foreign key here (migration 006), these locks are what keeps them from naming a deleted link.
 */
async function lockLinks(trx: Trx, raised: string[], readOnly: string[]): Promise<Map<string, number>> {
  const lock = async (ids: string[], mode: "NO KEY UPDATE" | "KEY SHARE") =>
    ids.length === 0 ? [] : (await sql<{ id: string; num: number }>`SELECT id, num FROM links WHERE id = ANY(${ids}::text[]) ORDER BY id FOR ${sql.raw(mode)}`.execute(trx)).rows;
  return new Map([...(await lock(raised, "NO KEY UPDATE")), ...(await lock(readOnly, "KEY SHARE"))].map((r) => [r.id, Number(r.num)]));
}

/** Inserts raw rows into clicks. */
async function insertRows(trx: Trx, rows: ClickRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted)
    SELECT * FROM unnest(${column(rows, "link_num")}::bigint[], ${column(rows, "at")}::bigint[], ${column(rows, "country")}::text[],
      ${column(rows, "device")}::text[], ${column(rows, "os")}::text[], ${column(rows, "browser")}::text[],
      ${column(rows, "referrer")}::text[], ${column(rows, "is_bot")}::int[], ${column(rows, "counted")}::int[])`.execute(trx);
}

/** Appends roll-up groups to click_pending. */
async function insertPending(trx: Trx, groups: Group[]): Promise<void> {
  if (groups.length === 0) return;
  await sql`INSERT INTO click_pending (link_num, day, country, device, os, browser, referrer, is_bot, clicks, counted)
    SELECT * FROM unnest(${column(groups, "link_num")}::bigint[], ${column(groups, "day")}::text[], ${column(groups, "country")}::text[],
      ${column(groups, "device")}::text[], ${column(groups, "os")}::text[], ${column(groups, "browser")}::text[], ${column(groups, "referrer")}::text[],
      ${column(groups, "is_bot")}::int[], ${column(groups, "clicks")}::int[], ${column(groups, "counted")}::int[])`.execute(trx);
}

/** Roll-ups and click_count increments of the groups of live links, rows in key order (see rollUp). */
async function writeRollups(trx: Trx, groups: Group[], live: Set<string>): Promise<void> {
  const u = rollUp(groups, live);
  if (u.increments.length > 0) {
    await sql`UPDATE links SET click_count = links.click_count + v.n
      FROM unnest(${u.increments.map((i) => i[0])}::text[], ${u.increments.map((i) => i[1])}::bigint[]) AS v(id, n)
      WHERE links.id = v.id`.execute(trx);
  }
  if (u.daily.length === 0) return;
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
}

/**
 * One transaction per batch: the raw clicks, and for light traffic the roll-ups and counts. A batch of
 * PENDING_MIN_BATCH clicks or more rolls up its links with DIRECT_MIN clicks or more the same way, and
 * appends the others' groups (most of a long tail: one click per link and batch) to click_pending: on a
 * long tail nearly every link of a batch cost eleven roll-up rows and a count update per click, now one
 * pending row, and the roll-up, every CLICK_ROLLUP_MS (stretched under load), writes a link's rows once
 * for all its clicks of the interval. Reads add the pending groups (ClickReads), so nothing shows late;
 * any instance's roll-up takes any instance's pending groups, so a crashed instance's are rolled up by
 * the others (or at its next start), each exactly once: a pending group is rolled up in the transaction
 * that deletes it.
 */
export class PostgresClickWriter implements ClickWriter {
  private moving: Promise<void> = Promise.resolve();

  /** `pendingMinBatch`: the batch size from which a long tail waits in click_pending (Infinity: never; the benchmark's comparison). */
  constructor(
    private readonly db: Db,
    private readonly countries: CountryResolver,
    private readonly pendingMinBatch = PENDING_MIN_BATCH,
  ) {}

  async write(clicks: ClickBatch): Promise<void> {
    const b = describeBatch(clicks, this.countries);
    let direct = b.groups;
    let pending: Group[] = [];
    if (b.rows.length >= this.pendingMinBatch) {
      const perLink = new Map<number, number>();
      for (const g of b.groups) perLink.set(g.link_num, (perLink.get(g.link_num) ?? 0) + g.clicks);
      const isDirect = (g: Group) => (perLink.get(g.link_num) as number) >= DIRECT_MIN;
      direct = b.groups.filter(isDirect);
      pending = b.groups.filter((g) => !isDirect(g));
    }
    // Links whose click_count this batch raises; the others (click-limited links, counted as served) are only read.
    const raising = new Set<string>();
    const rolled = new Set<string>();
    for (const g of direct) {
      rolled.add(g.link_id);
      if (g.clicks > g.counted) raising.add(g.link_id);
    }
    const raised = b.linkIds.filter((id) => raising.has(id));
    const readOnly = b.linkIds.filter((id) => rolled.has(id) && !raising.has(id));
    await this.db.transaction().execute(async (trx) => {
      // Links whose groups wait in click_pending are not locked (locking a row writes it: on a long tail
      // that was most of a batch's cost). One deleted meanwhile may keep clicks of this batch; the
      // roll-up that takes its pending group, finding the link gone, deletes them (movePending).
      const live = await lockLinks(trx, raised, readOnly);
      const stored = (id: string) => live.has(id) || !rolled.has(id);
      await insertRows(trx, live.size === rolled.size ? b.rows : b.rows.filter((r) => stored(r.link_id)));
      await insertPending(trx, pending);
      await writeRollups(trx, direct, new Set(live.keys()));
    });
  }

  /** Rolls every pending group up, MOVE_CHUNK per transaction; calls queue behind each other (one connection at most). */
  flushRollups(): Promise<void> {
    const run = this.moving.then(async () => {
      while ((await this.movePending()) === MOVE_CHUNK) await new Promise((resolve) => setImmediate(resolve));
    });
    this.moving = run.catch(() => undefined);
    return run;
  }

  /** At start: a crashed instance's pending groups (any instance's roll-up also takes them). */
  recover(): Promise<void> {
    return this.flushRollups();
  }

  /**
   * One roll-up transaction: the oldest MOVE_CHUNK pending groups, their links locked as a batch locks
   * them, deleted from click_pending and rolled up. Returns how many it looked at (fewer than
   * MOVE_CHUNK: none left).
   */
  private async movePending(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${MOVE_LOCK})`.execute(trx);
      const head = await sql<{ last: number | null; n: number }>`SELECT max(id) AS last, count(*)::int AS n FROM (SELECT id FROM click_pending ORDER BY id LIMIT ${MOVE_CHUNK}) p`.execute(trx);
      const { last, n } = head.rows[0]!;
      if (last === null) return 0;
      // Groups of links deleted since their batch: the clicks written with them go too (see write()).
      const dead = await sql<{ link_num: number }>`DELETE FROM click_pending p WHERE p.id <= ${last}
        AND NOT EXISTS (SELECT 1 FROM links l WHERE l.num = p.link_num) RETURNING p.link_num`.execute(trx);
      if (dead.rows.length > 0) await sql`DELETE FROM clicks WHERE link_num = ANY(${[...new Set(dead.rows.map((r) => r.link_num))]}::bigint[])`.execute(trx);
      const links = await sql<{ id: string; raises: boolean }>`SELECT l.id, bool_or(p.counted < p.clicks) AS raises
        FROM click_pending p JOIN links l ON l.num = p.link_num WHERE p.id <= ${last} GROUP BY l.id`.execute(trx);
      const live = await lockLinks(
        trx,
        links.rows.filter((l) => l.raises).map((l) => l.id),
        links.rows.filter((l) => !l.raises).map((l) => l.id),
      );
      const raisedNums = links.rows.filter((l) => l.raises && live.has(l.id)).map((l) => live.get(l.id) as number);
      const readNums = links.rows.filter((l) => !l.raises && live.has(l.id)).map((l) => live.get(l.id) as number);
      // Groups committed since the head was read may name other links, or raise a link only read-locked: they wait for the next roll-up.
      const moved = await sql<Omit<Group, "link_id">>`DELETE FROM click_pending
        WHERE id <= ${last} AND (link_num = ANY(${raisedNums}::bigint[]) OR (link_num = ANY(${readNums}::bigint[]) AND counted = clicks))
        RETURNING ${sql.join(GROUP_COLUMNS.map((c) => sql.ref(c)))}`.execute(trx);
      await writeRollups(trx, merged(moved.rows, new Map([...live].map(([id, num]) => [num, id]))), new Set(live.keys()));
      return n;
    });
  }
}

/** Pending group rows (several batches' groups of one link, day and values) merged into one group each, by link id. */
function merged(rows: Array<Omit<Group, "link_id">>, idOf: Map<number, string>): Group[] {
  const groups = new GroupSet();
  for (const r of rows) {
    const linkNum = Number(r.link_num);
    groups.add({ ...r, link_num: linkNum, link_id: idOf.get(linkNum) as string, clicks: Number(r.clicks), counted: Number(r.counted) });
  }
  return groups.byLinkId();
}

/** The pending groups of these links (read in the reader's snapshot). */
export async function pendingGroups(db: Db, links: LinkKey[]): Promise<Group[]> {
  if (links.length === 0) return [];
  const idOf = new Map(links.map((l) => [l.num, l.id]));
  const rows = await db
    .selectFrom("click_pending")
    .select([...GROUP_COLUMNS])
    .where("link_num", "in", [...idOf.keys()])
    .execute();
  return rows.length === 0 ? [] : merged(rows, idOf);
}
