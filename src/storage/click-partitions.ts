// PostgreSQL's raw clicks, one partition per UTC month of `at` (migration 063): clicks_pYYYYMM, and clicks_default
// for a time no month partition holds (a click of a month whose partition is not made yet: never refused, moved
// into its month once that is made). The writers make the partitions of the months they write, and the month after
// the latest ahead of time (ensureMonths); retention drops the months wholly past CLICK_RETENTION_DAYS (dropMonthsBefore)
// instead of deleting their rows one by one, and the recorder deletes what is left before the limit (pruneRaw).
import { sql } from "kysely";
import type { Db } from "./db.js";

const NAME = /^clicks_p(\d{4})(\d{2})$/;
/** Taken by whoever makes or drops partitions, for the length of its transaction: one instance at a time. */
const LOCK = 3_316_060;

/** A UTC month as "YYYY-MM". */
export type Month = string;

/** The month of an epoch ms time. */
export function monthOf(ms: number): Month {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Epoch ms of a month's first instant, and of the next month's. */
export function monthBounds(month: Month): { from: number; to: number } {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return { from: Date.UTC(y, m - 1, 1), to: Date.UTC(y, m, 1) };
}

/** The month after. */
export function nextMonth(month: Month): Month {
  return monthOf(monthBounds(month).to);
}

function partitionName(month: Month): string {
  return `clicks_p${month.slice(0, 4)}${month.slice(5, 7)}`;
}

/** The months that have a partition, oldest first. */
export async function partitionMonths(db: Db): Promise<Month[]> {
  const r = await sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'clicks'::regclass`.execute(db);
  return r.rows
    .map((x) => NAME.exec(x.name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]}-${m[2]}`)
    .sort();
}

/** The months from `first` to `last`, both included. */
export function monthsFrom(first: Month, last: Month): Month[] {
  const out: Month[] = [];
  for (let m = first; m <= last; m = nextMonth(m)) out.push(m);
  return out;
}

/**
 * Makes the partitions of these months that do not exist (one instance at a time): whether they all exist now.
 * Attaching a month waits at most a second for the readers of clicks_default; a month not made then is made by a
 * later pass, its clicks meanwhile kept in clicks_default.
 */
export async function ensureMonths(db: Db, months: Month[]): Promise<boolean> {
  const have = new Set(await partitionMonths(db));
  const wanted = months.filter((m) => !have.has(m));
  if (wanted.length === 0) return true;
  try {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${LOCK})`.execute(trx);
      await sql`SET LOCAL lock_timeout = '1s'`.execute(trx);
      await makeMonths(trx, wanted);
    });
    return true;
  } catch (err) {
    if (lockNotHad(err)) return false;
    throw err;
  }
}

/** A statement that gave up waiting for its lock (lock_timeout). */
function lockNotHad(err: unknown): boolean {
  return (err as { code?: unknown }).code === "55P03";
}

/** A statement on a table that another instance dropped meanwhile (undefined_table). */
function tableGone(err: unknown): boolean {
  return (err as { code?: unknown }).code === "42P01";
}

/**
 * Makes the partitions of these months that do not exist yet, in the caller's transaction (migration 063 runs in
 * the migrator's), each with the rows clicks_default holds for it moved in the same transaction, so that no reader
 * sees a click twice or not at all: a table like clicks, filled, then attached (PostgreSQL checks that the default
 * holds none of the month's rows any more).
 */
export async function makeMonths(trx: Db, months: Month[]): Promise<Month[]> {
  const have = new Set(await partitionMonths(trx));
  const made: Month[] = [];
  for (const month of months) {
    if (have.has(month)) continue;
    const { from, to } = monthBounds(month);
    const table = sql.table(partitionName(month));
    await sql`CREATE TABLE ${table} (LIKE clicks INCLUDING DEFAULTS)`.execute(trx);
    await sql`WITH moved AS (DELETE FROM clicks_default WHERE at >= ${from} AND at < ${to} RETURNING *)
      INSERT INTO ${table} SELECT * FROM moved`.execute(trx);
    await sql`ALTER TABLE clicks ATTACH PARTITION ${table} FOR VALUES FROM (${sql.lit(from)}) TO (${sql.lit(to)})`.execute(trx);
    made.push(month);
  }
  return made;
}

/**
 * Drops the month partitions that end at or before `before` (every click in them is past the retention period):
 * how many clicks they held. A drop locks clicks for a moment, and waits at most a second for its readers (a long
 * export) and writers: one not done then is left for the next pass, whose row deletes (pruneRaw) meanwhile keep the
 * limit.
 */
export async function dropMonthsBefore(db: Db, before: number): Promise<number> {
  const old = (await partitionMonths(db)).filter((m) => monthBounds(m).to <= before);
  let dropped = 0;
  for (const month of old) {
    const table = sql.table(partitionName(month));
    try {
      dropped += await db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(${LOCK})`.execute(trx);
        await sql`SET LOCAL lock_timeout = '1s'`.execute(trx);
        const n = await sql<{ n: string }>`SELECT count(*) AS n FROM ${table}`.execute(trx);
        await sql`DROP TABLE ${table}`.execute(trx);
        return Number(n.rows[0]!.n);
      });
    } catch (err) {
      // Dropped meanwhile by another instance (undefined_table), or its lock not had in time: the next pass sees.
      if (!lockNotHad(err) && !tableGone(err)) throw err;
    }
  }
  return dropped;
}

/**
 * Deletes the clicks before `before` that the dropped months left (the month `before` falls in, a month whose drop
 * waited too long, clicks_default), `chunk` rows a transaction: how many. Each chunk is found through the BRIN index on
 * `at` (migration 066; the planner is kept from reading the whole month, or the whole (link_num, at) index, once fewer
 * than a chunk are left) and deleted by row address, each partition on its own. Two instances at once delete each
 * click once: the second waits for the first's rows and skips them; a month the other dropped meanwhile is skipped.
 */
export async function deleteClicksBefore(db: Db, before: number, chunk: number): Promise<number> {
  const names = [...(await partitionMonths(db)).filter((m) => monthBounds(m).from < before).map(partitionName), "clicks_default"];
  let deleted = 0;
  for (const name of names) {
    const table = sql.table(name);
    for (;;) {
      let n: number;
      try {
        n = await db.transaction().execute(async (trx) => {
          await sql`SET LOCAL enable_seqscan = off`.execute(trx);
          await sql`SET LOCAL enable_indexscan = off`.execute(trx);
          const r = await sql`DELETE FROM ${table} WHERE at < ${before}
            AND ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE at < ${before} LIMIT ${chunk}))`.execute(trx);
          return Number(r.numAffectedRows ?? 0);
        });
      } catch (err) {
        if (tableGone(err)) break;
        throw err;
      }
      deleted += n;
      if (n < chunk) break;
    }
  }
  return deleted;
}
