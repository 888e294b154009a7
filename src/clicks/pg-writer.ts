// PostgreSQL's click writer: each batch in one transaction, its raw clicks sent by COPY (storage/pg-copy.ts) and its
// roll-ups by unnest() statements (one per table, whatever the batch size), its links locked in id order so that several
// instances never deadlock; monthly breakdown rows only for months compacted (pg-months.ts), the others compacted later.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { CLICK_COLUMNS, clickValues, describeBatch } from "./click-groups.js";
import { type RollUps, rollUp } from "./rollup-rows.js";
import { type ClickBatch, mergeBatches } from "./click-buffer.js";
import { PostgresVisitors, batchSpan, keysFor } from "./visitors.js";
import { markPostgres } from "./click-journal.js";
import { compactMonths, compactedBefore, monthsForBatch } from "./pg-months.js";
import { ensureMonths, nextMonth, partitionMonths } from "../storage/click-partitions.js";
import type { ClickWriter } from "./click-writer.js";
import type { CountryResolver } from "./describe.js";
import { transactionWithCopy } from "../storage/pg-copy.js";
import { arrayLiteral, columnLiteral } from "../storage/pg-arrays.js";
import { type StoredListener, eventIdPrefix } from "./stored.js";

/** PostgreSQL: everything in one transaction per batch (several instances write; no watermark to share). */
export class PostgresClickWriter implements ClickWriter {
  private readonly visitors: PostgresVisitors;
  /** The latest day of a click this writer wrote: the months before its month are over, to be compacted. */
  private latestDay = "";
  /** The latest month whose earlier months this writer found compacted ("" before the first check). */
  private compactedBefore = "";
  /** After a failed compaction: no new attempt before this time (epoch ms). */
  private compactRetryAt = 0;
  /** Months known to have their partition of clicks (storage/click-partitions.ts), and months written that may not. */
  private partitioned = new Set<string>();
  private readonly unpartitioned = new Set<string>();
  /** After months' partitions were not made (a lock not had in time, the database away): no new attempt before this time. */
  private partitionRetryAt = 0;

  /** `stored`: what hears of each batch in its transaction (src/click-listeners.ts; none in tools and tests). */
  constructor(
    private readonly db: Db,
    private readonly countries: CountryResolver,
    private readonly stored: readonly StoredListener[] = [],
  ) {
    this.visitors = new PostgresVisitors(db);
  }

  /**
   * Compacts the months that are over (on every instance; one at a time does the work), once per month
   * seen. A failure (the database away at a month's turn) is retried a minute later, not every roll-up.
   */
  async flushRollups(): Promise<void> {
    const month = this.latestDay.slice(0, 7);
    await this.makeMissingMonths(month);
    if (month === "" || month <= this.compactedBefore || Date.now() < this.compactRetryAt) return;
    try {
      if (await compactMonths(this.db, month)) this.compactedBefore = month;
    } catch (err) {
      this.compactRetryAt = Date.now() + 60_000;
      throw err;
    }
  }

  /**
   * Makes the partitions of clicks of the months written without one (an import's past months, a server stopped over
   * a month's turn: their clicks wait in clicks_default meanwhile) and of the month after the latest, so that a
   * month's clicks have theirs before it starts. Once per month; a failure is retried a minute later.
   */
  private async makeMissingMonths(latest: string): Promise<void> {
    if (latest !== "" && !this.partitioned.has(nextMonth(latest))) this.unpartitioned.add(nextMonth(latest));
    if (this.unpartitioned.size === 0 || Date.now() < this.partitionRetryAt) return;
    const months = [...this.unpartitioned].sort();
    let made = false;
    try {
      made = await ensureMonths(this.db, months);
    } finally {
      if (!made) this.partitionRetryAt = Date.now() + 60_000;
    }
    if (!made) return;
    for (const m of months) {
      this.partitioned.add(m);
      this.unpartitioned.delete(m);
    }
  }

  /** At start: the month from which compaction is still to come, and the months partitioned: no roll-up asks before a new month. */
  async recover(): Promise<void> {
    this.compactedBefore = await compactedBefore(this.db);
    this.partitioned = new Set(await partitionMonths(this.db));
  }

  writeMany(batches: ClickBatch[]): Promise<void> {
    return this.write(mergeBatches(batches));
  }

  async write(clicks: ClickBatch): Promise<void> {
    const { days, latest } = batchSpan(clicks);
    const salts = await this.visitors.saltsFor(days, latest);
    const b = describeBatch(clicks, this.countries, keysFor(clicks, salts));
    // Links whose click_count this batch raises; the others (click-limited links, counted as served) are only read.
    const raising = new Set<string>();
    for (const g of b.groups) if (g.clicks > g.counted) raising.add(g.link_id);
    const raised = b.linkIds.filter((id) => raising.has(id));
    const readOnly = b.linkIds.filter((id) => !raising.has(id));
    let seen = (): void => {};
    await transactionWithCopy(this.db, async (trx, copy) => {
      if (clicks.journal) {
        // A retry of a batch whose commit reached the server while its answer did not (the connection
        // dropped at that moment): its segment is recorded, its clicks are stored, nothing to do twice.
        const done = await trx.selectFrom("click_journal").select("segment").where("journal", "=", clicks.journal.journal).executeTakeFirst();
        if (done !== undefined && Number(done.segment) >= clicks.journal.segment) return;
        await markPostgres(trx, clicks.journal);
      }
      const keepsMonth = await monthsForBatch(trx);
      const live = await lockLinks(trx, raised, readOnly);
      if (live.size === 0) return;
      seen = await this.visitors.mark(trx, b);
      const rows = live.size === b.linkIds.length ? b.rows : b.rows.filter((r) => live.has(r.link_id));
      await copy("clicks", CLICK_COLUMNS, rows.map(clickValues));
      // What the "stored" listeners write (the click stream's events), committed with the clicks (stored.ts).
      if (this.stored.length > 0) {
        const chunk = { rows, first: 0, prefix: eventIdPrefix(clicks.journal) };
        for (const l of this.stored) await l.postgres(trx, chunk);
      }
      const nums = new Map(b.groups.map((g) => [g.link_id, g.link_num]));
      const u = rollUp(b.groups, live, (linkId, month) => keepsMonth(nums.get(linkId)!, month));
      for (const g of b.groups) {
        if (g.day > this.latestDay) this.latestDay = g.day;
        const month = g.day.slice(0, 7);
        if (!this.partitioned.has(month)) this.unpartitioned.add(month);
      }
      await writeLinkRollups(trx, u);
      await writeOwnerRollups(trx, u);
    });
    seen();
  }
}

/** The batch's links that still exist, with their owners (link id to owner id). */
async function lockLinks(trx: Db, raised: string[], readOnly: string[]): Promise<Map<string, string | null>> {
  // Locks the links to update in id order (the lock an UPDATE takes; concurrent writers cannot
  // deadlock), and only keeps the others from being deleted: FOR KEY SHARE does not block the
  // click-limit count, which would otherwise wait for this whole transaction on every visit. A
  // link deleted meanwhile is not returned and its clicks are skipped: neither clicks nor the roll-up
  // rows have a foreign key here (migrations 006 and 068), these locks are what keeps them from naming a
  // deleted link.
  const lock = async (ids: string[], mode: "NO KEY UPDATE" | "KEY SHARE") =>
    ids.length === 0
      ? []
      : (
          await sql<{
            id: string;
            owner_id: string | null;
          }>`SELECT id, owner_id FROM links WHERE id = ANY(${arrayLiteral(ids)}::text[]) ORDER BY id FOR ${sql.raw(mode)}`.execute(trx)
        ).rows;
  return new Map([...(await lock(raised, "NO KEY UPDATE")), ...(await lock(readOnly, "KEY SHARE"))].map((r) => [r.id, r.owner_id]));
}

/** The link rows of a batch: click counts, then the daily, hourly, breakdown and compacted months' rows. */
async function writeLinkRollups(trx: Db, u: RollUps): Promise<void> {
  if (u.increments.length > 0) {
    // GREATEST ignores NULL: a link's first click sets last_click_at. No index of links holds either column, so
    // the update is HOT; the list's sorts read link_click_order, which a trigger keeps equal (migration 061).
    await sql`UPDATE links SET click_count = links.click_count + v.n, last_click_at = GREATEST(links.last_click_at, v.at)
      FROM unnest(${columnLiteral(u.increments, 0)}::text[], ${columnLiteral(u.increments, 1)}::bigint[], ${columnLiteral(u.increments, 2)}::bigint[]) AS v(id, n, at)
      WHERE links.id = v.id`.execute(trx);
  }
  await sql`INSERT INTO click_daily (link_id, day, clicks, bots, visitors, qr)
    SELECT * FROM unnest(${columnLiteral(u.daily, "link_id")}::text[], ${columnLiteral(u.daily, "day")}::text[],
      ${columnLiteral(u.daily, "clicks")}::bigint[], ${columnLiteral(u.daily, "bots")}::bigint[], ${columnLiteral(u.daily, "visitors")}::bigint[], ${columnLiteral(u.daily, "qr")}::bigint[])
    ON CONFLICT (link_id, day) DO UPDATE SET clicks = click_daily.clicks + excluded.clicks, bots = click_daily.bots + excluded.bots,
      visitors = click_daily.visitors + excluded.visitors, qr = click_daily.qr + excluded.qr`.execute(trx);
  await sql`INSERT INTO click_hourly (link_id, hour, clicks, bots, visitors, qr)
    SELECT * FROM unnest(${columnLiteral(u.hourly, "link_id")}::text[], ${columnLiteral(u.hourly, "hour")}::bigint[],
      ${columnLiteral(u.hourly, "clicks")}::bigint[], ${columnLiteral(u.hourly, "bots")}::bigint[], ${columnLiteral(u.hourly, "visitors")}::bigint[], ${columnLiteral(u.hourly, "qr")}::bigint[])
    ON CONFLICT (link_id, hour) DO UPDATE SET clicks = click_hourly.clicks + excluded.clicks, bots = click_hourly.bots + excluded.bots,
      visitors = click_hourly.visitors + excluded.visitors, qr = click_hourly.qr + excluded.qr`.execute(trx);
  await sql`INSERT INTO click_breakdown (link_id, day, dimension, value, clicks, visitors)
    SELECT * FROM unnest(${columnLiteral(u.breakdown, "link_id")}::text[], ${columnLiteral(u.breakdown, "day")}::text[],
      ${columnLiteral(u.breakdown, "dimension")}::text[], ${columnLiteral(u.breakdown, "value")}::text[], ${columnLiteral(u.breakdown, "clicks")}::bigint[], ${columnLiteral(u.breakdown, "visitors")}::bigint[])
    ON CONFLICT (link_id, dimension, day, value) DO UPDATE SET clicks = click_breakdown.clicks + excluded.clicks, visitors = click_breakdown.visitors + excluded.visitors`.execute(
    trx,
  );
  if (u.monthly.length > 0)
    await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks, visitors)
    SELECT * FROM unnest(${columnLiteral(u.monthly, "link_id")}::text[], ${columnLiteral(u.monthly, "month")}::text[],
      ${columnLiteral(u.monthly, "dimension")}::text[], ${columnLiteral(u.monthly, "value")}::text[], ${columnLiteral(u.monthly, "clicks")}::bigint[], ${columnLiteral(u.monthly, "visitors")}::bigint[])
    ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks, visitors = click_breakdown_month.visitors + excluded.visitors`.execute(
      trx,
    );
}

/** The owner rows of a batch, after its links' (in key order: concurrent instances lock them alike). */
async function writeOwnerRollups(trx: Db, u: RollUps): Promise<void> {
  if (u.ownerDaily.length > 0)
    await sql`INSERT INTO owner_daily (owner_id, day, clicks, bots, visitors, qr)
      SELECT * FROM unnest(${columnLiteral(u.ownerDaily, "owner_id")}::text[], ${columnLiteral(u.ownerDaily, "day")}::text[], ${columnLiteral(u.ownerDaily, "clicks")}::bigint[],
        ${columnLiteral(u.ownerDaily, "bots")}::bigint[], ${columnLiteral(u.ownerDaily, "visitors")}::bigint[], ${columnLiteral(u.ownerDaily, "qr")}::bigint[])
      ON CONFLICT (owner_id, day) DO UPDATE SET clicks = owner_daily.clicks + excluded.clicks, bots = owner_daily.bots + excluded.bots,
        visitors = owner_daily.visitors + excluded.visitors, qr = owner_daily.qr + excluded.qr`.execute(trx);
  if (u.ownerHourly.length > 0)
    await sql`INSERT INTO owner_hourly (owner_id, hour, clicks, bots, visitors, qr)
      SELECT * FROM unnest(${columnLiteral(u.ownerHourly, "owner_id")}::text[], ${columnLiteral(u.ownerHourly, "hour")}::bigint[], ${columnLiteral(u.ownerHourly, "clicks")}::bigint[],
        ${columnLiteral(u.ownerHourly, "bots")}::bigint[], ${columnLiteral(u.ownerHourly, "visitors")}::bigint[], ${columnLiteral(u.ownerHourly, "qr")}::bigint[])
      ON CONFLICT (owner_id, hour) DO UPDATE SET clicks = owner_hourly.clicks + excluded.clicks, bots = owner_hourly.bots + excluded.bots,
        visitors = owner_hourly.visitors + excluded.visitors, qr = owner_hourly.qr + excluded.qr`.execute(trx);
  if (u.ownerBreakdown.length > 0)
    await sql`INSERT INTO owner_breakdown (owner_id, day, dimension, value, clicks, visitors)
      SELECT * FROM unnest(${columnLiteral(u.ownerBreakdown, "owner_id")}::text[], ${columnLiteral(u.ownerBreakdown, "day")}::text[], ${columnLiteral(u.ownerBreakdown, "dimension")}::text[],
        ${columnLiteral(u.ownerBreakdown, "value")}::text[], ${columnLiteral(u.ownerBreakdown, "clicks")}::bigint[], ${columnLiteral(u.ownerBreakdown, "visitors")}::bigint[])
      ON CONFLICT (owner_id, dimension, day, value) DO UPDATE SET clicks = owner_breakdown.clicks + excluded.clicks, visitors = owner_breakdown.visitors + excluded.visitors`.execute(
      trx,
    );
  if (u.ownerMonthly.length > 0)
    await sql`INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors)
      SELECT * FROM unnest(${columnLiteral(u.ownerMonthly, "owner_id")}::text[], ${columnLiteral(u.ownerMonthly, "month")}::text[], ${columnLiteral(u.ownerMonthly, "dimension")}::text[],
        ${columnLiteral(u.ownerMonthly, "value")}::text[], ${columnLiteral(u.ownerMonthly, "clicks")}::bigint[], ${columnLiteral(u.ownerMonthly, "visitors")}::bigint[])
      ON CONFLICT (owner_id, dimension, month, value) DO UPDATE SET clicks = owner_breakdown_month.clicks + excluded.clicks,
        visitors = owner_breakdown_month.visitors + excluded.visitors`.execute(trx);
}
