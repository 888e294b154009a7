// PostgreSQL's monthly compaction (migration 030), as SQLite's (sqlite-rollups.ts): a batch upserts a
// month's monthly breakdown rows (the links' and their owners', migration 062) only once that month is
// compacted; the months after click_rollup_state.months_through are read from the daily rows (stats.ts)
// and, once clicks of a later month are written, compacted from them, link range by link range (by
// links.num, an integer that orders the same in every collation), each chunk in a transaction of its
// own that records how far it got. That saves a Zipf tail's batch about a fifth of its database work (bench/README.md).
//
// Several instances write: a batch reads the state FOR SHARE in its own transaction, a compaction
// chunk takes it FOR UPDATE, so no chunk commits between a batch's reading of the state and its
// commit (a batch that skipped a month's rows for links the chunk then compacts from daily rows the
// chunk could not see). One instance compacts at a time (an advisory lock); both take the state row
// first, so they never deadlock.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { BREAKDOWNS } from "./click-groups.js";
import { monthBefore } from "./rollup-rows.js";

/** Links per compaction transaction (the batches of every instance wait for one chunk at most). */
export const COMPACT_LINKS = 2_000;
/** Compaction transactions per roll-up interval of one instance. */
const CHUNKS_PER_CALL = 20;
/** pg_try_advisory_xact_lock's key for the compaction ("snipmnth"). */
const COMPACTION_LOCK = 0x736e69706d6e7468n;

/** click_rollup_state's monthly columns; on PostgreSQL compact_link holds the last links.num done. */
interface MonthState {
  through: string;
  to: string | null;
  /** The last link number a compaction in progress has done (-1: none yet). */
  num: number;
}

async function readState(trx: Db, lock: "SHARE" | "UPDATE"): Promise<MonthState> {
  const r = await sql<{ months_through: string | null; compact_to: string | null; compact_link: string | null }>`
    SELECT months_through, compact_to, compact_link FROM click_rollup_state WHERE id = 1 FOR ${sql.raw(lock)}`.execute(trx);
  const row = r.rows[0];
  const to = row?.compact_to ?? null;
  return { through: row?.months_through ?? "", to, num: to === null ? -1 : Number(row?.compact_link ?? -1) };
}

/**
 * Inside a batch's transaction: whether the batch writes a month's monthly rows for a link (by its
 * number): months compacted, and the one being compacted for the links done. Holds the state row
 * FOR SHARE until the batch commits.
 */
export async function monthsForBatch(trx: Db): Promise<(linkNum: number, month: string) => boolean> {
  const m = await readState(trx, "SHARE");
  return (linkNum, month) => month <= m.through || (m.to !== null && month <= m.to && linkNum <= m.num);
}

/**
 * Compacts the months before `latestMonth` (the latest month of a click this instance wrote) that
 * the monthly rows do not hold yet, up to `chunks` transactions; the next call goes on. Whether
 * they are all compacted (false: more to do, or another instance is at it): a writer that got true
 * asks again only once a later month comes, so no query runs in between (nor fails while the
 * database is away).
 */
export async function compactMonths(db: Db, latestMonth: string, chunks = CHUNKS_PER_CALL): Promise<boolean> {
  if (latestMonth === "") return true;
  for (let i = 0; i < chunks; i++) {
    const step = await db.transaction().execute(async (trx): Promise<"done" | "busy" | "more" | "finished"> => {
      const locked = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${COMPACTION_LOCK}::bigint) AS ok`.execute(trx);
      if (!locked.rows[0]?.ok) return "busy";
      const m = await readState(trx, "UPDATE");
      if (m.to === null) {
        if (monthBefore(latestMonth) <= m.through) return "done";
        m.to = monthBefore(latestMonth);
      }
      return (await compactChunk(trx, m)) ? "more" : "finished";
    });
    if (step === "done") return true;
    if (step === "busy") return false;
  }
  return false;
}

/** The month after the last compacted one, when no compaction is under way ("" otherwise): months before it need nothing. */
export async function compactedBefore(db: Db): Promise<string> {
  const m = await readState(db, "SHARE");
  return m.to !== null || m.through === "" ? "" : monthAfter(m.through);
}

/**
 * The first month ("YYYY-MM"; "" for any) from which a link's clicks are at most link_click_order's click_count - base_count
 * (migration 065): the last compacted month, or the one a compaction under way is at (the links it did count the months
 * before it in base_count).
 */
export async function recentFrom(db: Db): Promise<string> {
  const r = await sql<{ month: string | null }>`SELECT coalesce(compact_to, months_through) AS month FROM click_rollup_state WHERE id = 1`.execute(db);
  return r.rows[0]?.month ?? "";
}

/** "YYYY-MM" of the month after a "YYYY-MM". */
function monthAfter(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
}

/**
 * One chunk: the monthly rows of the next COMPACT_LINKS links from their daily rows, and their counts before the
 * last compacted month; whether more are left.
 */
async function compactChunk(trx: Db, m: MonthState): Promise<boolean> {
  // Locked against deletion until the chunk commits: its monthly rows have no foreign key to links (migration 068), and a
  // link deleted meanwhile would keep the rows written after its trigger deleted the others.
  const nums = await sql<{ num: string }>`SELECT num FROM links WHERE num > ${m.num} ORDER BY num LIMIT ${COMPACT_LINKS} FOR KEY SHARE`.execute(trx);
  const last = nums.rows.length === COMPACT_LINKS ? Number(nums.rows[nums.rows.length - 1]!.num) : null;
  // "YYYY-MM-32" sorts after every day of the month and before the next month's first.
  const after = m.through === "" ? "" : `${m.through}-32`;
  const before = `${m.to}-32`;
  await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks, visitors)
    SELECT b.link_id, substr(b.day, 1, 7), b.dimension, b.value, sum(b.clicks), sum(b.visitors)
    FROM links l JOIN click_breakdown b ON b.link_id = l.id
    WHERE l.num > ${m.num} ${last === null ? sql`` : sql`AND l.num <= ${last}`}
      AND b.dimension IN (${sql.join(BREAKDOWNS.map((d) => sql.lit(d)))}) AND b.day > ${after} AND b.day < ${before}
    GROUP BY b.link_id, substr(b.day, 1, 7), b.dimension, b.value
    ON CONFLICT (link_id, dimension, month, value) DO UPDATE SET clicks = click_breakdown_month.clicks + excluded.clicks,
      visitors = click_breakdown_month.visitors + excluded.visitors`.execute(trx);
  // The same links' rows of those months, just written (no roll-up writes them before their link is compacted), added to their owners'.
  await sql`INSERT INTO owner_breakdown_month (owner_id, month, dimension, value, clicks, visitors)
    SELECT l.owner_id, m.month, m.dimension, m.value, sum(m.clicks), sum(m.visitors)
    FROM links l JOIN click_breakdown_month m ON m.link_id = l.id
    WHERE l.num > ${m.num} ${last === null ? sql`` : sql`AND l.num <= ${last}`} AND l.owner_id IS NOT NULL
      AND m.month > ${m.through} AND m.month <= ${m.to}
    GROUP BY l.owner_id, m.month, m.dimension, m.value
    ON CONFLICT (owner_id, dimension, month, value) DO UPDATE SET clicks = owner_breakdown_month.clicks + excluded.clicks,
      visitors = owner_breakdown_month.visitors + excluded.visitors`.execute(trx);
  // The same links' clicks before the last compacted month (link_click_order.base_count, migration 065): the months from
  // the one last compacted up to the one before this compaction's, whose monthly rows are complete.
  await sql`UPDATE link_click_order o SET base_count = o.base_count + s.clicks
    FROM (SELECT bm.link_id, sum(bm.clicks) AS clicks FROM links l JOIN click_breakdown_month bm ON bm.link_id = l.id
      WHERE l.num > ${m.num} ${last === null ? sql`` : sql`AND l.num <= ${last}`}
        AND bm.dimension = 'device' AND bm.month >= ${m.through} AND bm.month < ${m.to}
      GROUP BY bm.link_id) AS s
    WHERE o.link_id = s.link_id`.execute(trx);
  if (last === null) await sql`UPDATE click_rollup_state SET months_through = ${m.to}, compact_to = NULL, compact_link = NULL WHERE id = 1`.execute(trx);
  else await sql`UPDATE click_rollup_state SET compact_to = ${m.to}, compact_link = ${String(last)} WHERE id = 1`.execute(trx);
  return last !== null;
}
