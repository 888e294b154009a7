// Fresh reads of clicks, one mechanism for every reader (link objects' click_count, every statistic):
// what is stored plus what is held back from it (SQLite: from the roll-ups; PostgreSQL: this process's
// clicks not committed yet), read so that no click counts twice or never.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { Group } from "./click-groups.js";
import type { HeldBack, Uncommitted } from "./click-writer.js";
import { rollupStateKey } from "./sqlite-rollups.js";
import { countUncommittedVisitors } from "./visitors.js";

/** A link as the click tables know it: roll-ups by id, raw clicks by number. */
export interface LinkKey {
  id: string;
  num: number;
}

/**
 * Reads that find the roll-up state changed since the writer answered are retried; a writer committing
 * a roll-up chunk every few milliseconds for longer than this many attempts is not seen in practice.
 */
const ATTEMPTS = 10;

export interface ClickReadsDeps {
  db: Db;
  /**
   * The writer's held-back groups of these links (null: of every link), in its memory (on its thread), with the
   * roll-up state they complement; null where it holds none back.
   */
  heldBack: (linkNums: number[] | null) => Promise<HeldBack> | null;
  /**
   * PostgreSQL: this process's clicks of these links (null: of every link, their groups' link_id empty when
   * read back from the journal) not committed yet (taken in one synchronous step); null on SQLite.
   */
  uncommitted?: (links: LinkKey[] | null) => Uncommitted | null;
}

/**
 * On SQLite roll-ups and links.click_count are written behind the raw clicks, every CLICK_ROLLUP_MS,
 * from the groups the writer holds in memory. A read takes the held-back groups of its links and what
 * is stored in one consistent view: the writer answers with its groups and the roll-up state
 * (click_rollup_state) they complement; the stored rows are read in one read transaction with that
 * state, and read again when a roll-up chunk committed in between (the state differs).
 *
 * PostgreSQL's writer writes raw clicks, roll-ups and counts with every batch, in one transaction
 * (several instances share them), and every instance sees every instance's clicks once their batch is
 * in. When the writer falls behind the load, clicks wait in this process's memory: a read adds this
 * process's clicks not committed yet (the recorder's buffer and every batch not done). Which of those a
 * snapshot already holds is in the snapshot itself: each batch's transaction records its segment in the
 * process's click_journal row, so the read takes the uncommitted groups first, then reads that row and
 * the stored rows in one REPEATABLE READ transaction and adds the groups of the segments after it. A
 * batch that commits at any point of the read is counted once, from memory or from the rows, never
 * both; no retry is needed. Another instance's clicks not committed yet are not seen here.
 */
export class ClickReads {
  constructor(private readonly deps: ClickReadsDeps) {}

  /**
   * Runs `read` on stored rows with the held-back groups of `links` (the same view; null: of every link, for
   * a reader of many links that keeps the groups of its own by number, see account-analytics.ts); returns both, and
   * `unwritten`: the groups whose raw clicks are not in the raw tables either (PostgreSQL's clicks not
   * committed yet; none on SQLite, where what is held back from the roll-ups is stored raw).
   */
  async read<T>(links: LinkKey[] | null, read: (db: Db, groups: Group[]) => Promise<T>): Promise<{ value: T; groups: Group[]; unwritten: Group[] }> {
    const { db } = this.deps;
    const uncommitted = this.deps.uncommitted?.(links) ?? null;
    if (uncommitted !== null) {
      const r = await this.withUncommitted(uncommitted, read);
      return { ...r, unwritten: r.groups };
    }
    for (let attempt = 1; ; attempt++) {
      const held = this.deps.heldBack(links === null ? null : links.map((l) => l.num));
      if (held === null) return { value: await read(db, []), groups: [], unwritten: [] };
      const h = await held;
      // A deferred transaction: a read snapshot without the write lock (Kysely's transactions on SQLite begin IMMEDIATE).
      const r = await db.connection().execute(async (conn) => {
        await sql`BEGIN`.execute(conn);
        try {
          const st = await conn
            .selectFrom("click_rollup_state")
            .select(["last_click_id as last", "epoch_to", "epoch_link"])
            .where("id", "=", 1)
            .executeTakeFirstOrThrow();
          return { state: rollupStateKey(st), value: await read(conn, h.groups) };
        } finally {
          await sql`COMMIT`.execute(conn);
        }
      });
      if (r.state === h.state || attempt === ATTEMPTS) return { value: r.value, groups: h.groups, unwritten: [] };
    }
  }

  /** PostgreSQL: `read` on one snapshot with the uncommitted groups of the segments that snapshot does not hold. */
  private async withUncommitted<T>(u: Uncommitted, read: (db: Db, groups: Group[]) => Promise<T>): Promise<{ value: T; groups: Group[] }> {
    const { db } = this.deps;
    // Nothing of these links in memory: every click answered before this read is committed.
    if (u.batches.length === 0) return { value: await read(db, []), groups: [] };
    return db
      .transaction()
      .setIsolationLevel("repeatable read")
      .setAccessMode("read only")
      .execute(async (trx) => {
        // The first statement takes the snapshot that the stored rows are read in too.
        const row = await trx.selectFrom("click_journal").select("segment").where("journal", "=", u.journal).executeTakeFirst();
        const through = row === undefined ? 0 : Number(row.segment);
        const batches = u.batches.filter((b) => b.segment > through);
        await countUncommittedVisitors(trx, batches);
        const groups = batches.flatMap((b) => b.groups);
        return { value: await read(trx, groups), groups };
      });
  }

  /** Each link's click count as every read shows it: links.click_count and its held-back clicks. */
  async counts(links: LinkKey[]): Promise<Map<string, number>> {
    if (links.length === 0) return new Map();
    const ids = links.map((l) => l.id);
    const { value, groups } = await this.read(links, (db) => db.selectFrom("links").select(["id", "click_count"]).where("id", "in", ids).execute());
    const counts = new Map(value.map((r) => [r.id, Number(r.click_count)]));
    for (const g of groups) {
      const n = counts.get(g.link_id);
      if (n !== undefined) counts.set(g.link_id, n + heldCount(g));
    }
    return counts;
  }
}

/** What a held-back group adds to links.click_count (clicks of click-limited links were counted as served). */
export function heldCount(g: Group): number {
  return g.clicks - g.counted;
}
