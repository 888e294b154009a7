// PostgreSQL's click writer: each batch in one transaction of unnest() statements (one per table,
// whatever the batch size), its links locked in id order so that several instances never deadlock;
// under load a long tail's clicks wait in click_pending for the periodic roll-up (any instance's),
// which moves them into clicks and rolls them up in one transaction. Also the read of pending clicks.
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
/** Pending clicks moved per roll-up transaction. */
const MOVE_CHUNK = 10_000;
/** The advisory lock that lets one instance at a time move pending clicks (their order of row locks is then one). */
const MOVE_LOCK = 0x736e6970; // "snip"
const CLICK_COLUMNS = ["link_num", "at", "country", "device", "os", "browser", "referrer", "is_bot", "counted"] as const;

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

/** Inserts raw rows into clicks or click_pending. */
async function insertRows(trx: Trx, table: "clicks" | "click_pending", rows: ClickRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`INSERT INTO ${sql.table(table)} (link_num, at, country, device, os, browser, referrer, is_bot, counted)
    SELECT * FROM unnest(${column(rows, "link_num")}::bigint[], ${column(rows, "at")}::bigint[], ${column(rows, "country")}::text[],
      ${column(rows, "device")}::text[], ${column(rows, "os")}::text[], ${column(rows, "browser")}::text[],
      ${column(rows, "referrer")}::text[], ${column(rows, "is_bot")}::int[], ${column(rows, "counted")}::int[])`.execute(trx);
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
 * One transaction per batch. Light traffic is written whole: raw clicks, roll-ups and counts. A batch of
 * PENDING_MIN_BATCH clicks or more writes its links with DIRECT_MIN clicks or more the same way, and
 * appends the others' (most of a long tail: one click per link and batch) to click_pending: on a long
 * tail nearly every link of a batch cost eleven roll-up rows and a count update per click, now one
 * pending row, and the roll-up, every CLICK_ROLLUP_MS (stretched under load), writes a link's rows once
 * for all its clicks of the interval. Reads add the pending clicks (ClickReads), so nothing shows late;
 * any instance's roll-up moves any instance's pending clicks, so a crashed instance's are rolled up by
 * the others (or at its next start), each exactly once: a pending row is rolled up in the transaction
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
    let directRows = b.rows;
    let pendingRows: ClickRow[] = [];
    if (b.rows.length >= this.pendingMinBatch) {
      const perLink = new Map<number, number>();
      for (const r of b.rows) perLink.set(r.link_num, (perLink.get(r.link_num) ?? 0) + 1);
      const isDirect = (num: number) => (perLink.get(num) as number) >= DIRECT_MIN;
      direct = b.groups.filter((g) => isDirect(g.link_num));
      directRows = b.rows.filter((r) => isDirect(r.link_num));
      pendingRows = b.rows.filter((r) => !isDirect(r.link_num));
    }
    // Links whose click_count this batch raises; the others (click-limited links, counted as served, and pending clicks) are only read.
    const raising = new Set<string>();
    for (const g of direct) if (g.clicks > g.counted) raising.add(g.link_id);
    const raised = b.linkIds.filter((id) => raising.has(id));
    const readOnly = b.linkIds.filter((id) => !raising.has(id));
    await this.db.transaction().execute(async (trx) => {
      const live = await lockLinks(trx, raised, readOnly);
      if (live.size === 0) return;
      const isLive = (r: ClickRow) => live.has(r.link_id);
      const all = live.size === b.linkIds.length;
      await insertRows(trx, "clicks", all ? directRows : directRows.filter(isLive));
      await insertRows(trx, "click_pending", all ? pendingRows : pendingRows.filter(isLive));
      await writeRollups(trx, direct, new Set(live.keys()));
    });
  }

  /** Moves every pending click into clicks and the roll-ups, MOVE_CHUNK per transaction; calls queue behind each other (one connection at most). */
  flushRollups(): Promise<void> {
    const run = this.moving.then(async () => {
      while ((await this.movePending()) === MOVE_CHUNK) await new Promise((resolve) => setImmediate(resolve));
    });
    this.moving = run.catch(() => undefined);
    return run;
  }

  /** At start: a crashed instance's pending clicks (any instance's roll-up also moves them). */
  recover(): Promise<void> {
    return this.flushRollups();
  }

  /**
   * One roll-up transaction: the oldest MOVE_CHUNK pending clicks, their links locked as a batch locks
   * them, deleted from click_pending, inserted into clicks and rolled up. Returns how many pending clicks
   * it looked at (fewer than MOVE_CHUNK: none left).
   */
  private async movePending(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${MOVE_LOCK})`.execute(trx);
      const head = await sql<{ last: number | null; n: number }>`SELECT max(id) AS last, count(*)::int AS n FROM (SELECT id FROM click_pending ORDER BY id LIMIT ${MOVE_CHUNK}) p`.execute(trx);
      const { last, n } = head.rows[0]!;
      if (last === null) return 0;
      const links = await sql<{ id: string; raises: boolean }>`SELECT l.id, bool_or(p.counted = 0) AS raises
        FROM click_pending p JOIN links l ON l.num = p.link_num WHERE p.id <= ${last} GROUP BY l.id`.execute(trx);
      const live = await lockLinks(
        trx,
        links.rows.filter((l) => l.raises).map((l) => l.id),
        links.rows.filter((l) => !l.raises).map((l) => l.id),
      );
      const raisedNums = links.rows.filter((l) => l.raises && live.has(l.id)).map((l) => live.get(l.id) as number);
      const readNums = links.rows.filter((l) => !l.raises && live.has(l.id)).map((l) => live.get(l.id) as number);
      // Rows committed since the head was read may name other links, or raise a link only read-locked: they wait for the next move.
      const moved = await sql<Omit<ClickRow, "link_id">>`DELETE FROM click_pending
        WHERE id <= ${last} AND (link_num = ANY(${raisedNums}::bigint[]) OR (link_num = ANY(${readNums}::bigint[]) AND counted = 1))
        RETURNING ${sql.join(CLICK_COLUMNS.map((c) => sql.ref(c)))}`.execute(trx);
      const idOf = new Map([...live].map(([id, num]) => [num, id]));
      const rows = moved.rows.map((r) => ({ ...r, link_num: Number(r.link_num), at: Number(r.at), link_id: idOf.get(Number(r.link_num)) as string }));
      rows.sort((a, b) => a.link_num - b.link_num || a.at - b.at);
      await insertRows(trx, "clicks", rows);
      const groups = new GroupSet();
      groups.addRows(rows);
      await writeRollups(trx, groups.byLinkId(), new Set(live.keys()));
      return n;
    });
  }
}

/** The pending clicks of these links as roll-up groups (read in the reader's snapshot). */
export async function pendingGroups(db: Db, links: LinkKey[]): Promise<Group[]> {
  if (links.length === 0) return [];
  const idOf = new Map(links.map((l) => [l.num, l.id]));
  const rows = await db
    .selectFrom("click_pending")
    .select([...CLICK_COLUMNS])
    .where("link_num", "in", [...idOf.keys()])
    .execute();
  if (rows.length === 0) return [];
  const groups = new GroupSet();
  groups.addRows(rows.map((r) => ({ ...r, link_num: Number(r.link_num), at: Number(r.at), link_id: idOf.get(Number(r.link_num)) as string })));
  return groups.byLinkId();
}
