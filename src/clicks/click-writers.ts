// The click sink's two writers, each one transaction per batch with a fixed, small number of
// statements: SQLite through prepared statements on the raw handle (synchronous, no query building
// per click), PostgreSQL through unnest() arrays (one statement per table, whatever the batch size).
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { type ClickRow, type DescribedBatch, type Group, addGroups, describeBatch, increments, mergeGroups, rollUp } from "./click-batch.js";
import type { CountryResolver } from "./describe.js";
import type { ClickInput } from "./recorder.js";

export interface ClickWriter {
  /** Writes one batch in one transaction; clicks of links deleted meanwhile are skipped. */
  write(batch: ClickInput[]): Promise<void>;
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
 * Roll-up groups held in memory before a write is forced: bounds memory on a long-tailed flood, and
 * the time one roll-up transaction holds SQLite's write lock (a few tens of ms).
 */
const MAX_PENDING_GROUPS = 1_000;
const RECOVERY_CHUNK = 50_000;

/**
 * SQLite: raw clicks and click counts are written with every batch; the roll-ups are held in memory
 * and written every few seconds (one upsert per distinct link, day and value instead of one per
 * batch), together with a watermark (the last click id they include) so a crash loses nothing:
 * recover() folds in the raw clicks past the watermark at the next start.
 */
export class SqliteClickWriter implements ClickWriter {
  private s: SqliteStatements | null = null;
  private pending = new Map<string, Group>();
  private pendingUpTo = 0;

  /**
   * `lock` runs a synchronous step alone on the connection: Kysely's connection mutex on the main
   * thread (so clicks never join, or roll back with, another transaction), a plain call in the worker.
   */
  constructor(
    private readonly lock: <T>(fn: () => T) => Promise<T>,
    private readonly handle: SQLite.Database,
    private readonly countries: CountryResolver,
  ) {}

  async write(inputs: ClickInput[]): Promise<void> {
    const s = this.statements();
    const batch = describeBatch(inputs, this.countries);
    await this.lock(() => {
      const { live, lastId } = s.raw.immediate(batch);
      // In the same synchronous step as the commit, so a roll-up write never sees rows without their groups.
      if (live.size > 0) {
        mergeGroups(this.pending, live.size === batch.linkIds.length ? batch.groups : batch.groups.filter((g) => live.has(g.link_id)));
        this.pendingUpTo = Math.max(this.pendingUpTo, lastId);
      }
    });
    if (this.pending.size >= MAX_PENDING_GROUPS) await this.flushRollups();
  }

  async flushRollups(): Promise<void> {
    if (this.pending.size === 0) return;
    const s = this.statements();
    await this.lock(() => {
      const groups = this.pending;
      const upTo = this.pendingUpTo;
      this.pending = new Map();
      try {
        s.rollups.immediate([...groups.values()], upTo);
      } catch (err) {
        mergeGroups(this.pending, groups.values());
        throw err;
      }
    });
  }

  /** The atomic click-limit count, on this writer's connection. */
  async countLimited(linkId: string, maxClicks: number): Promise<boolean> {
    const s = this.statements();
    return this.lock(() => s.countLimited.run(linkId, maxClicks).changes > 0);
  }

  async recover(): Promise<void> {
    const s = this.statements();
    await this.lock(() => {
      for (;;) {
        const from = Number(s.watermark.get() ?? 0);
        const rows = s.clicksAfter.all(from, RECOVERY_CHUNK) as (ClickRow & { id: number })[];
        if (rows.length === 0) return;
        const groups = new Map<string, Group>();
        // Their click_count was written with them: only the roll-ups are missing.
        addGroups(groups, rows, () => true);
        s.rollups.immediate([...groups.values()], Number(rows[rows.length - 1]!.id));
      }
    });
  }

  /** Prepared on first use: the tables may not exist yet when the recorder is built (CLI migrate). */
  private statements(): SqliteStatements {
    return (this.s ??= sqliteStatements(this.handle));
  }
}

type SqliteStatements = ReturnType<typeof sqliteStatements>;

/** The writer's statements and its two transactions: raw clicks with counts, and roll-ups with the watermark. */
function sqliteStatements(handle: SQLite.Database) {
  const st = prepare(handle);
  const liveOf = (ids: Iterable<string>) => {
    const live = new Set<string>();
    for (const id of ids) if (st.linkExists.get(id) !== undefined) live.add(id);
    return live;
  };
  const raw = handle.transaction((b: DescribedBatch) => {
    const live = liveOf(b.linkIds);
    let lastId = 0;
    if (live.size === 0) return { live, lastId };
    for (const r of b.rows) {
      if (live.has(r.link_id)) lastId = Number(st.click.run(r.link_id, r.at, r.country, r.device, r.os, r.browser, r.referrer, r.is_bot).lastInsertRowid);
    }
    for (const [id, n] of increments(b.groups, live)) st.increment.run(n, id);
    return { live, lastId };
  });
  const rollups = handle.transaction((groups: Group[], upTo: number) => {
    // Links deleted since their clicks were taken are skipped (their roll-ups went with them).
    const u = rollUp(groups, liveOf(new Set(groups.map((g) => g.link_id))));
    for (const d of u.daily) st.daily.run(d.link_id, d.day, d.clicks, d.bots);
    for (const d of u.breakdown) st.breakdown.run(d.link_id, d.day, d.dimension, d.value, d.clicks);
    for (const d of u.monthly) st.monthly.run(d.link_id, d.month, d.dimension, d.value, d.clicks);
    st.advance.run(upTo, upTo);
  });
  return { ...st, raw, rollups };
}

function prepare(h: SQLite.Database) {
  return {
    linkExists: h.prepare("SELECT 1 FROM links WHERE id = ?").pluck(),
    click: h.prepare("INSERT INTO clicks (link_id, at, country, device, os, browser, referrer, is_bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
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
    watermark: h.prepare("SELECT last_click_id FROM click_rollup_state WHERE id = 1").pluck(),
    advance: h.prepare(
      "INSERT INTO click_rollup_state (id, last_click_id) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_click_id = max(last_click_id, ?)",
    ),
    clicksAfter: h.prepare("SELECT id, link_id, at, country, device, os, browser, referrer, is_bot FROM clicks WHERE id > ? ORDER BY id LIMIT ?"),
    monthly: h.prepare(
      "INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks",
    ),
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

  async write(inputs: ClickInput[]): Promise<void> {
    const b = describeBatch(inputs, this.countries);
    await this.db.transaction().execute(async (trx) => {
      // Locks the batch's links in id order (the lock an UPDATE takes, so click-limit counting on other
      // instances simply waits); a link deleted meanwhile is not returned and its clicks are skipped.
      const found = await sql<{ id: string }>`SELECT id FROM links WHERE id = ANY(${b.linkIds}::text[]) ORDER BY id FOR NO KEY UPDATE`.execute(trx);
      const live = new Set(found.rows.map((r) => r.id));
      if (live.size === 0) return;
      const rows = live.size === b.linkIds.length ? b.rows : b.rows.filter((r) => live.has(r.link_id));
      await sql`INSERT INTO clicks (link_id, at, country, device, os, browser, referrer, is_bot)
        SELECT * FROM unnest(${column(rows, "link_id")}::text[], ${column(rows, "at")}::bigint[], ${column(rows, "country")}::text[],
          ${column(rows, "device")}::text[], ${column(rows, "os")}::text[], ${column(rows, "browser")}::text[],
          ${column(rows, "referrer")}::text[], ${column(rows, "is_bot")}::int[])`.execute(trx);
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
