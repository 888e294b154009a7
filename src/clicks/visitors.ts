// Visitors without storing anyone (docs/privacy.md): a click's visitor key is a hash of the UTC day's
// salt, the link, the client address and the user agent. Salts are random, shared by every instance
// through visitor_salts, and deleted with the keys once the day after has passed: a key cannot then be
// recomputed from an address. A click is its visitor's first of the day on its link when its key is
// new in click_visitors; the writer asks in the transaction that writes the click.
import { hash, randomBytes } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { columnLiteral } from "../storage/pg-arrays.js";
import { type ClickRow, type DescribedBatch, type Group, type VisitorKeyOf, dayOf } from "./click-groups.js";
import { type ClickBatch, FIELD, WIDTH } from "./click-buffer.js";

const DAY_MS = 86_400_000;
/** Keys remembered as written, per writer: past this many, the oldest day's are forgotten (the table answers). */
const MAX_SEEN = 1_000_000;

/** A 48-bit key (a safe integer in every engine and in JSON). */
export function visitorKey(salt: string, linkNum: number, ip: string, userAgent: string): number {
  return hash("sha256", `${salt}\u0000${linkNum}\u0000${ip}\u0000${userAgent}`, "buffer").readUIntBE(0, 6);
}

/** The days whose salts and keys are kept: today and yesterday (UTC); a click of an earlier day gets a salt of its own again. */
export function keptSince(nowMs: number): string {
  return dayOf(nowMs - DAY_MS);
}

/** Keys each batch's description by the salts of its days (loaded first); each (link, address, agent) hashed once per batch. */
export function keysFor(batch: ClickBatch, salts: ReadonlyMap<string, string>): VisitorKeyOf {
  const memo = new Map<string, number>();
  // Rows come link by link: a link's consecutive clicks from one visitor reuse the last key without a lookup.
  let last = { day: "", linkNum: -1, ip: -1, userAgent: -1, key: 0 };
  return (day, linkNum, ip, userAgent) => {
    if (linkNum === last.linkNum && ip === last.ip && userAgent === last.userAgent && day === last.day) return last.key;
    const k = `${day}\u0000${linkNum}\u0000${ip}\u0000${userAgent}`;
    let key = memo.get(k);
    if (key === undefined) {
      key = visitorKey(salts.get(day) as string, linkNum, batch.strings[ip] as string, batch.strings[userAgent] as string);
      memo.set(k, key);
    }
    last = { day, linkNum, ip, userAgent, key };
    return key;
  };
}

/** The UTC days of a batch's clicks (a batch spans seconds: one day, two around midnight) and its latest click's time. */
export function batchSpan(batch: ClickBatch): { days: string[]; latest: number } {
  let min = Infinity;
  let max = 0;
  for (let o = FIELD.at; o < batch.length * WIDTH; o += WIDTH) {
    const at = batch.fields[o] as number;
    if (at < min) min = at;
    if (at > max) max = at;
  }
  const days: string[] = [];
  if (batch.length > 0) for (let d = Date.parse(dayOf(min)); d <= max; d += DAY_MS) days.push(dayOf(d));
  return { days, latest: max };
}

/**
 * Marks rows `start` to `end` that are their visitor's first of the day on the link (`isNew`, asked once
 * per row in order: the writer's record of keys answers) and counts them into their groups.
 */
export function markNewVisitors(b: DescribedBatch, start: number, end: number, isNew: (day: string, key: number) => boolean): void {
  let lastDay = "";
  let lastKey = -1;
  for (let i = start; i < end; i++) {
    const g = b.rowGroups[i] as Group;
    const key = b.visitorKeys[i] as number;
    // The same visitor as the row before (a link's rows are together): asked already, not new now.
    if (key === lastKey && g.day === lastDay) continue;
    lastDay = g.day;
    lastKey = key;
    if (isNew(g.day, key)) {
      (b.rows[i] as ClickRow).new_visitor = 1;
      g.visitors++;
    }
  }
}

/** Keys this writer knows are in click_visitors (committed): their clicks are not new, no statement asked. */
export class SeenVisitors {
  private readonly byDay = new Map<string, Set<number>>();
  private size = 0;

  has(day: string, key: number): boolean {
    return this.byDay.get(day)?.has(key) === true;
  }

  /** After the commit that wrote them. */
  addAll(keys: Iterable<[string, number]>): void {
    for (const [day, key] of keys) {
      let set = this.byDay.get(day);
      if (set === undefined) {
        this.byDay.set(day, (set = new Set()));
        // Days in order: a new day lets go of the oldest kept beyond yesterday.
        if (this.byDay.size > 2) this.drop([...this.byDay.keys()].sort()[0] as string);
      }
      if (!set.has(key)) {
        set.add(key);
        this.size++;
      }
    }
    while (this.size > MAX_SEEN && this.byDay.size > 0) this.drop([...this.byDay.keys()].sort()[0] as string);
  }

  private drop(day: string): void {
    this.size -= this.byDay.get(day)?.size ?? 0;
    this.byDay.delete(day);
  }
}

/** SQLite's writer (synchronous, on its own connection): salts, and the first-visit test inside the raw rows' transaction. */
export class SqliteVisitors {
  readonly salts = new Map<string, string>();
  private readonly seen = new SeenVisitors();
  private readonly st;
  /** Keys inserted by the transaction in progress, remembered once it commits. */
  private pending: [string, number][] = [];

  constructor(handle: SQLite.Database) {
    this.st = {
      insertSalt: handle.prepare("INSERT INTO visitor_salts (day, salt) VALUES (?, ?) ON CONFLICT (day) DO NOTHING"),
      salt: handle.prepare("SELECT salt FROM visitor_salts WHERE day = ?").pluck(),
      forgetSalts: handle.prepare("DELETE FROM visitor_salts WHERE day < ?"),
      forgetKeys: handle.prepare("DELETE FROM click_visitors WHERE day < ?"),
      insertKey: handle.prepare("INSERT INTO click_visitors (day, visitor) VALUES (?, ?) ON CONFLICT (day, visitor) DO NOTHING"),
    };
  }

  hasSalts(days: string[]): boolean {
    return days.every((d) => this.salts.has(d));
  }

  /** The salts of a batch's days, made where missing; a new day deletes the salts and keys of the days before yesterday. */
  saltsFor(days: string[], nowMs: number): Map<string, string> {
    for (const day of days) {
      if (this.salts.has(day)) continue;
      this.st.insertSalt.run(day, randomBytes(16).toString("base64url"));
      this.salts.set(day, this.st.salt.get(day) as string);
      const since = keptSince(nowMs);
      this.st.forgetSalts.run(since);
      this.st.forgetKeys.run(since);
      for (const d of this.salts.keys()) if (d < since && !days.includes(d)) this.salts.delete(d);
    }
    return this.salts;
  }

  /** Inside the transaction of rows `start` to `end`: marks and counts their visitors' first clicks. */
  mark(b: DescribedBatch, start: number, end: number): void {
    this.pending = [];
    markNewVisitors(b, start, end, (day, key) => {
      if (this.seen.has(day, key)) return false;
      const isNew = this.st.insertKey.run(day, key).changes > 0;
      this.pending.push([day, key]);
      return isNew;
    });
  }

  /** After that transaction committed. */
  committed(): void {
    this.seen.addAll(this.pending);
    this.pending = [];
  }
}

/** PostgreSQL's writer: salts shared by the instances, and the first-visit test in each batch's transaction. */
export class PostgresVisitors {
  private readonly salts = new Map<string, string>();
  private readonly seen = new SeenVisitors();

  constructor(private readonly db: Db) {}

  async saltsFor(days: string[], nowMs: number): Promise<Map<string, string>> {
    for (const day of days) {
      if (this.salts.has(day)) continue;
      await this.db
        .insertInto("visitor_salts")
        .values({ day, salt: randomBytes(16).toString("base64url") })
        .onConflict((oc) => oc.column("day").doNothing())
        .execute();
      const row = await this.db.selectFrom("visitor_salts").select("salt").where("day", "=", day).executeTakeFirstOrThrow();
      this.salts.set(day, row.salt);
      const since = keptSince(nowMs);
      await this.db.deleteFrom("visitor_salts").where("day", "<", since).execute();
      await this.db.deleteFrom("click_visitors").where("day", "<", since).execute();
      for (const d of this.salts.keys()) if (d < since && !days.includes(d)) this.salts.delete(d);
    }
    return this.salts;
  }

  /**
   * In the batch's transaction: the keys not known written are inserted in key order (concurrent
   * instances lock them in the same order), and those the insert returns are new; then the rows are
   * marked in order, each new key's first row only. Returns what to remember once the transaction commits.
   */
  async mark(trx: Db, b: DescribedBatch): Promise<() => void> {
    const candidates = new Map<string, [string, number]>();
    for (let i = 0; i < b.rows.length; i++) {
      const day = (b.rowGroups[i] as DescribedBatch["groups"][number]).day;
      const key = b.visitorKeys[i] as number;
      if (!this.seen.has(day, key)) candidates.set(`${day}\u0000${key}`, [day, key]);
    }
    const sorted = [...candidates.values()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]));
    const fresh = new Set<string>();
    if (sorted.length > 0) {
      const inserted = await sql<{ day: string; visitor: string }>`INSERT INTO click_visitors (day, visitor)
        SELECT d, v FROM unnest(${columnLiteral(sorted, 0)}::text[], ${columnLiteral(sorted, 1)}::bigint[]) WITH ORDINALITY AS u(d, v, n) ORDER BY n
        ON CONFLICT (day, visitor) DO NOTHING RETURNING day, visitor`.execute(trx);
      for (const r of inserted.rows) fresh.add(`${r.day}\u0000${Number(r.visitor)}`);
    }
    markNewVisitors(b, 0, b.rows.length, (day, key) => fresh.delete(`${day}\u0000${key}`));
    return () => this.seen.addAll(sorted);
  }
}

/**
 * PostgreSQL's read of clicks not committed yet (click-reads.ts), in the read's snapshot: each group's
 * visitors are the visits whose key is not in click_visitors there and not already counted by an
 * earlier click of the groups (batches in segment order, clicks in batch order), as the writer will find.
 */
export async function countUncommittedVisitors(trx: Db, batches: Array<{ groups: Group[] }>): Promise<void> {
  const visits = batches.flatMap((b, n) => b.groups.flatMap((g) => (g.visits ?? []).map((v) => ({ g, v, order: n * 2 ** 32 + v.order }))));
  if (visits.length === 0) return;
  visits.sort((a, b) => a.order - b.order);
  const days = [...new Set(visits.map((x) => x.v.day))];
  const salts = new Map((await trx.selectFrom("visitor_salts").select(["day", "salt"]).where("day", "in", days).execute()).map((r) => [r.day, r.salt]));
  const keyOf = (x: (typeof visits)[number]) => {
    const salt = salts.get(x.v.day);
    // A day without a salt yet: no click of it is written, every visitor is new.
    return salt === undefined ? `${x.g.link_num}\u0000${x.v.ip}\u0000${x.v.userAgent}` : visitorKey(salt, x.g.link_num, x.v.ip, x.v.userAgent);
  };
  const keyed = visits.map((x) => ({ ...x, key: keyOf(x) }));
  const known = new Set<string>();
  for (const day of salts.keys()) {
    const keys = keyed.filter((x) => x.v.day === day).map((x) => x.key as number);
    const rows = await trx
      .selectFrom("click_visitors")
      .select("visitor")
      .where("day", "=", day)
      .where("visitor", "in", [...new Set(keys)])
      .execute();
    for (const r of rows) known.add(`${day}\u0000${Number(r.visitor)}`);
  }
  for (const x of keyed) {
    const id = `${x.v.day}\u0000${x.key}`;
    if (known.has(id)) continue;
    known.add(id);
    x.g.visitors++;
  }
}
