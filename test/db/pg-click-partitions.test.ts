// PostgreSQL's raw clicks by month (migration 063, src/storage/click-partitions.ts): the migration carries every
// click over with its id into a partition of its month; a click of a month with no partition is kept in
// clicks_default and moved into its month once the writer makes it (with the next month, ahead of time); retention
// drops the months wholly past CLICK_RETENTION_DAYS and deletes the rest before the limit, exactly once across
// instances; a partition not attachable or droppable within its lock timeout (a reader holding clicks) is left for
// a later pass and nothing is lost or counted twice.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import { type Db, openPostgresDb, type Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import { deleteClicksBefore, dropMonthsBefore, ensureMonths, monthOf, monthsFrom, nextMonth, partitionMonths } from "../../src/storage/click-partitions.js";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { ManualClock } from "../../src/shared/clock.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

/** Where each click is: partition name and id, in id order. */
async function placed(db: Db): Promise<string[]> {
  const r = await sql<{ part: string; id: string }>`SELECT tableoid::regclass::text AS part, id FROM clicks ORDER BY id`.execute(db);
  return r.rows.map((x) => `${x.part}:${x.id}`);
}

/** A link of its own alias (clicks name links by number): its number. */
async function newLink(db: Db, id: string, alias: string): Promise<number> {
  const r = await sql<{ num: string }>`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at)
    VALUES (${id}, '', ${alias}, 'https://example.com/', 0, 0, 0) RETURNING num`.execute(db);
  return Number(r.rows[0]!.num);
}

/** A transaction on `reader` that has read `table` (an ACCESS SHARE lock on it) and holds it until released. */
async function holding(reader: Db, table: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const isHeld = new Promise<void>((r) => (held = r));
  const tx = reader.transaction().execute(async (trx) => {
    await sql`SELECT count(*) FROM ${sql.table(table)}`.execute(trx);
    held();
    await released;
  });
  await isHeld;
  return async () => {
    release();
    await tx;
  };
}

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL clicks by month", () => {
  const open: Array<{ close(): Promise<void> } | { destroy(): Promise<void> }> = [];
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const o of open.reverse()) await ("close" in o ? o.close() : o.destroy());
    for (const d of dbs) await d.drop();
  });
  async function fresh(upTo?: string): Promise<Storage & { url: string }> {
    const d = await createTestDatabase("postgres");
    dbs.push(d);
    const storage = await openTestStorage(d);
    open.push(storage);
    if (upTo) await migrateTo(storage, upTo);
    else await migrateToLatest(storage);
    return Object.assign(storage, { url: d.databaseUrl as string });
  }

  it("migration 063 moves every click, with its id, into its month; ids go on from the same sequence", async () => {
    const storage = await fresh("062-owner-months");
    const db = storage.db;
    const num = await newLink(db, "l1", "a1");
    // A click at a nonsense time (0: 1970) among them makes one month, not one for every month since.
    const times = [0, Date.UTC(2025, 10, 30, 23, 59), Date.UTC(2025, 11, 1), Date.UTC(2026, 1, 14)];
    for (const at of times)
      await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted) VALUES (${num}, ${at}, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0)`.execute(
        db,
      );
    const before = (await sql<{ id: string }>`SELECT id FROM clicks ORDER BY id`.execute(db)).rows.map((r) => r.id);

    expect(await migrateToLatest(storage)).toContain("063-pg-click-partitions");
    expect(await placed(db)).toEqual([
      `clicks_p197001:${before[0]}`,
      `clicks_p202511:${before[1]}`,
      `clicks_p202512:${before[2]}`,
      `clicks_p202602:${before[3]}`,
    ]);
    // A partition for each month that holds clicks, this one and the next: no empty month between.
    const now = monthOf(Date.now());
    expect(await partitionMonths(db)).toEqual([...new Set(["1970-01", "2025-11", "2025-12", "2026-02", now, nextMonth(now)])].sort());
    const kind = await sql<{ kind: string }>`SELECT relkind AS kind FROM pg_class WHERE relname = 'clicks'`.execute(db);
    expect(kind.rows[0]!.kind).toBe("p");
    await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted) VALUES (${num}, ${Date.now()}, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0)`.execute(
      db,
    );
    const ids = (await sql<{ id: string }>`SELECT id FROM clicks ORDER BY id`.execute(db)).rows.map((r) => Number(r.id));
    expect(ids).toHaveLength(5);
    expect(ids[4]).toBeGreaterThan(ids[3]!);
    // The link's deletion still takes its clicks along (migration 006's trigger), from every month.
    await sql`DELETE FROM links WHERE id = 'l1'`.execute(db);
    expect(await placed(db)).toEqual([]);
  });

  it("keeps a click of a month with no partition in clicks_default, then moves it into its month, made by the writer with the next", async () => {
    const storage = await fresh();
    const db = storage.db;
    const num = await newLink(db, "w1", "w1");
    const writer = new PostgresClickWriter(db, new CountryResolver(null));
    const at = Date.UTC(2031, 2, 31, 23, 30);
    const input = (t: number): ClickInput => ({
      linkId: "w1",
      linkNum: num,
      at: t,
      userAgent: UA,
      referer: "",
      ip: "198.51.100.7",
      country: null,
      counted: false,
      destination: null,
    });
    await writer.recover();
    // With a click of January, as an import brings a link's past visits.
    const january = Date.UTC(2031, 0, 15);
    await writer.write(batchOf([input(january), input(at), input(at + 1_000)]));
    const first = await placed(db);
    expect(first.map((p) => p.split(":")[0])).toEqual(["clicks_default", "clicks_default", "clicks_default"]);
    await writer.flushRollups();
    // Each month written, and the month after the latest; not February, which nothing was written in.
    expect(await partitionMonths(db)).toEqual(expect.arrayContaining(["2031-01", "2031-03", "2031-04"]));
    expect(await partitionMonths(db)).not.toContain("2031-02");
    const moved = first.map((p, i) => p.replace("clicks_default", i === 0 ? "clicks_p203101" : "clicks_p203103"));
    expect(await placed(db)).toEqual(moved);
    // April's partition was there before April's clicks.
    await writer.write(batchOf([input(at + 3_600_000)]));
    expect((await placed(db)).at(-1)).toMatch(/^clicks_p203104:/);
    const daily = await sql<{ day: string; clicks: string }>`SELECT day, clicks FROM click_daily WHERE link_id = 'w1' ORDER BY day`.execute(db);
    expect(daily.rows.map((r) => `${r.day} ${r.clicks}`)).toEqual(["2031-01-15 1", "2031-03-31 2", "2031-04-01 1"]);
  });

  it("waits at most a second for a reader of clicks_default: the month is made by a later pass, nothing lost", async () => {
    const storage = await fresh();
    const db = storage.db;
    const reader = openPostgresDb(storage.url, 1);
    open.push(reader);
    const num = await newLink(db, "r1", "r1");
    await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted) VALUES (${num}, ${Date.UTC(2032, 4, 5)}, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0)`.execute(
      db,
    );
    const release = await holding(reader, "clicks_default");
    const t0 = Date.now();
    expect(await ensureMonths(db, ["2032-05"])).toBe(false);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await partitionMonths(db)).not.toContain("2032-05");
    expect((await placed(db)).map((p) => p.split(":")[0])).toEqual(["clicks_default"]);
    await release();
    expect(await ensureMonths(db, ["2032-05"])).toBe(true);
    expect((await placed(db)).map((p) => p.split(":")[0])).toEqual(["clicks_p203205"]);
  });

  it("drops whole months past retention; a month held by a reader is left for the next pass", async () => {
    const storage = await fresh();
    const db = storage.db;
    const reader = openPostgresDb(storage.url, 1);
    open.push(reader);
    await ensureMonths(db, monthsFrom("2030-01", "2030-04"));
    const num = await newLink(db, "d1", "d1");
    const add = (at: number) =>
      sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted) VALUES (${num}, ${at}, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0)`.execute(
        db,
      );
    for (let i = 0; i < 3; i++) await add(Date.UTC(2030, 0, 10) + i);
    for (let i = 0; i < 2; i++) await add(Date.UTC(2030, 1, 10) + i);
    await add(Date.UTC(2030, 2, 1));
    await add(Date.UTC(2030, 2, 20));
    // A reader of February's month: it cannot be dropped within the second; January can.
    const release = await holding(reader, "clicks_p203002");
    const before = Date.UTC(2030, 2, 10);
    expect(await dropMonthsBefore(db, before)).toBe(3);
    expect(await partitionMonths(db)).not.toContain("2030-01");
    expect(await partitionMonths(db)).toContain("2030-02");
    await release();
    // Next pass: February goes whole; March (the limit inside it) keeps its partition.
    expect(await dropMonthsBefore(db, before)).toBe(2);
    expect(await partitionMonths(db)).toEqual(expect.arrayContaining(["2030-03", "2030-04"]));
    expect(await partitionMonths(db)).not.toContain("2030-02");
    expect((await placed(db)).map((p) => p.split(":")[0])).toEqual(["clicks_p203003", "clicks_p203003"]);
  });

  it("migration 066: no key on clicks, a BRIN index on at in every month (one made later too); retention deletes by it, chunk by chunk", async () => {
    const storage = await fresh("065-pg-recent-clicks");
    const db = storage.db;
    const num = await newLink(db, "b1", "b1");
    const add = (ats: number[]) =>
      sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted)
        SELECT ${num}, a, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0 FROM unnest(${ats}::bigint[]) AS a`.execute(db);
    const now = Date.now();
    await add([now - 2, now - 1]);
    const kept = await placed(db);
    await migrateToLatest(storage);
    // The clicks and their ids stay; the key goes.
    expect(await placed(db)).toEqual(kept);
    const keys = await sql`SELECT conname FROM pg_constraint WHERE conrelid = 'clicks'::regclass AND contype = 'p'`.execute(db);
    expect(keys.rows).toEqual([]);
    const indexes = async (table: string) =>
      (
        await sql<{ am: string; def: string }>`SELECT am.amname AS am, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i
          JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = ${table}::regclass`.execute(db)
      ).rows
        .map((r) => `${r.am} ${r.def.replace(/^.* USING \w+ /, "")}`)
        .sort();
    expect(await indexes("clicks_default")).toEqual(["brin (at) WITH (autosummarize='on')", "btree (link_num, at)"]);
    // A month made after the migration gets both indexes when it is attached.
    expect(await ensureMonths(db, ["2031-01"])).toBe(true);
    expect(await indexes("clicks_p203101")).toEqual(["brin (at) WITH (autosummarize='on')", "btree (link_num, at)"]);
    // 20,000 clicks of January 2031 over 500 links, one a minute in time order, and 3 of a month with no partition.
    const jan = Date.UTC(2031, 0, 5);
    await sql`INSERT INTO clicks (link_num, at, country, device, os, browser, referrer, is_bot, counted)
      SELECT i % 500, ${jan}::bigint + i * 60000, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0, 0 FROM generate_series(0, 19999) AS i`.execute(db);
    await add([Date.UTC(2030, 5, 1), Date.UTC(2030, 5, 2), Date.UTC(2030, 5, 3)]);
    await sql`ANALYZE clicks`.execute(db);
    // The chunk is found through the BRIN index, not by reading the month or the other index whole.
    const plan = await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_indexscan = off`.execute(trx);
      return (await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT ctid FROM clicks_p203101 WHERE at < ${jan + 20 * 60_000} LIMIT 7`.execute(trx)).rows
        .map((r) => r["QUERY PLAN"])
        .join("\n");
    });
    expect(plan).toMatch(/Bitmap Index Scan on clicks_p203101_at_idx/);
    // The limit after the 20th January click: those 20, the 3 in clicks_default and the 2 of this month, in chunks of 7.
    expect(await deleteClicksBefore(db, jan + 20 * 60_000, 7)).toBe(25);
    const left = (await sql<{ n: string; first: string }>`SELECT count(*) AS n, min(at) AS first FROM clicks`.execute(db)).rows[0]!;
    expect([Number(left.n), Number(left.first)]).toEqual([19_980, jan + 20 * 60_000]);
    expect(await deleteClicksBefore(db, jan + 20 * 60_000, 7)).toBe(0);
  });

  describe("retention through the recorder, two instances at once", () => {
    let a: TestServer;
    let b: TestServer;
    const clock = new ManualClock(Date.UTC(2029, 4, 20, 12));
    afterAll(async () => {
      // b first: a drops the database.
      await b?.close();
      await a?.close();
    });

    it("drops March and April, deletes May's clicks before the limit, each click counted once", async () => {
      a = await startTestServer({ engine: "postgres", clock, env: { CLICK_RETENTION_DAYS: "10" } });
      b = await startTestServer({ engine: "postgres", clock, env: { CLICK_RETENTION_DAYS: "10" }, databaseUrl: a.databaseUrl });
      const user = await a.ctx.accounts.create({ email: "months@example.com", password: "correct horse 1", plan: "pro", verified: true });
      const link = await a.ctx.links.create(user, { url: "https://example.com/months" });
      // Made as the writers went through those months.
      expect(await ensureMonths(a.ctx.storage.db, monthsFrom("2029-03", "2029-05"))).toBe(true);
      const times = [
        Date.UTC(2029, 2, 3),
        Date.UTC(2029, 2, 30),
        Date.UTC(2029, 3, 15),
        Date.UTC(2029, 4, 2),
        Date.UTC(2029, 4, 9, 11),
        Date.UTC(2029, 4, 10, 13),
      ];
      for (const at of times)
        a.ctx.clicks.record({
          linkId: link.id,
          linkNum: link.num,
          at,
          userAgent: UA,
          referer: "",
          ip: "203.0.113.9",
          country: null,
          counted: false,
          destination: null,
        });
      await a.ctx.clicks.flush();
      await a.ctx.clicks.flush();
      const db = a.ctx.storage.db;
      // June's made ahead by the writer.
      expect(await partitionMonths(db)).toEqual(expect.arrayContaining(["2029-03", "2029-04", "2029-05", "2029-06"]));
      expect((await placed(db)).filter((p) => p.startsWith("clicks_default"))).toEqual([]);
      // The limit: 2029-05-10 12:00. Both instances prune at once.
      const [x, y] = await Promise.all([a.ctx.clicks.pruneRaw(), b.ctx.clicks.pruneRaw()]);
      expect(x + y).toBe(5);
      expect(await partitionMonths(db)).not.toContain("2029-03");
      expect(await partitionMonths(db)).not.toContain("2029-04");
      const left = await db.selectFrom("clicks").select("at").execute();
      expect(left.map((r) => Number(r.at))).toEqual([Date.UTC(2029, 4, 10, 13)]);
      // The roll-ups stay.
      const stats = await a.ctx.stats.daily(link.id, {
        from: "2029-03-01",
        to: "2029-05-31",
        days: 92,
        startMs: Date.UTC(2029, 2, 1),
        endMs: Date.UTC(2029, 5, 1),
      });
      expect(stats.clicks).toBe(6);
    });
  });
});
