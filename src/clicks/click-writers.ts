// The click sink's two writers, each one transaction per batch with a fixed, small number of
// statements: SQLite through prepared statements on the raw handle (synchronous, no query building
// per click), PostgreSQL through unnest() arrays (one statement per table, whatever the batch size).
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { type DescribedBatch, rollUp } from "./click-batch.js";

export interface ClickWriter {
  /** Writes one described batch in one transaction; clicks of links deleted meanwhile are skipped. */
  write(batch: DescribedBatch): Promise<void>;
}

export class SqliteClickWriter implements ClickWriter {
  private tx: ((b: DescribedBatch) => void) & { immediate(b: DescribedBatch): void } | null = null;

  constructor(
    private readonly db: Db,
    private readonly handle: SQLite.Database,
  ) {}

  async write(batch: DescribedBatch): Promise<void> {
    const tx = (this.tx ??= this.transaction());
    // connection() holds the mutex of Kysely's one SQLite connection: no Kysely transaction is open
    // while the synchronous transaction runs, so the clicks never join (or roll back with) another one.
    await this.db.connection().execute(async () => tx.immediate(batch));
  }

  /** Prepared on first use: the tables may not exist yet when the recorder is built (CLI migrate). */
  private transaction() {
    const s = prepare(this.handle);
    return this.handle.transaction((b: DescribedBatch) => {
      const live = new Set<string>();
      for (const id of b.linkIds) if (s.linkExists.get(id) !== undefined) live.add(id);
      if (live.size === 0) return;
      for (const r of b.rows) {
        if (live.has(r.link_id)) s.click.run(r.link_id, r.at, r.country, r.device, r.os, r.browser, r.referrer, r.is_bot);
      }
      const u = rollUp(b.groups, live);
      for (const [id, n] of u.increments) s.increment.run(n, id);
      for (const d of u.daily) s.daily.run(d.link_id, d.day, d.clicks, d.bots);
      for (const d of u.breakdown) s.breakdown.run(d.link_id, d.day, d.dimension, d.value, d.clicks);
      for (const d of u.monthly) s.monthly.run(d.link_id, d.month, d.dimension, d.value, d.clicks);
    });
  }
}

function prepare(h: SQLite.Database) {
  return {
    linkExists: h.prepare("SELECT 1 FROM links WHERE id = ?").pluck(),
    click: h.prepare("INSERT INTO clicks (link_id, at, country, device, os, browser, referrer, is_bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
    increment: h.prepare("UPDATE links SET click_count = click_count + ? WHERE id = ?"),
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
  };
}

function column<T, K extends keyof T>(rows: T[], key: K): T[K][] {
  return rows.map((r) => r[key]);
}

export class PostgresClickWriter implements ClickWriter {
  constructor(private readonly db: Db) {}

  async write(b: DescribedBatch): Promise<void> {
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
