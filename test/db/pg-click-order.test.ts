// PostgreSQL's link_click_order (migration 061): the list's sorts by clicks and last click read it, so it must
// equal links' click_count, last_click_at and owner after every kind of write (inserts of several rows, the
// click writer's batches, a click-limited count, an owner change, deletes direct and cascaded), and leave rows
// alone when nothing it copies changed. With no index on click_count and last_click_at, the click writer's
// UPDATE of links is HOT: it writes no index entry.
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { type Db, openPostgresDb, openStorage, type Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import { ENGINES, createTestDatabase, type TestDatabase } from "../helpers/engines.js";

const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const AT = Date.UTC(2026, 11, 1, 12);

interface Pair {
  id: string;
  owner: string | null;
  links: [number, number];
  order: [number, number] | null;
}

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL link_click_order", () => {
  let tdb: TestDatabase;
  let storage: Storage;
  let db: Db;
  /** One connection: its statistics are flushed on demand (pg_stat_force_next_flush) before they are read. */
  let one: Db;
  const nums = new Map<string, number>();

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    storage = await openStorage({ kind: "postgres", url: tdb.databaseUrl as string });
    await migrateToLatest(storage);
    db = storage.db;
    one = openPostgresDb(tdb.databaseUrl as string, 1);
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'x', 0, 0), ('u2', 'u2@example.com', 'x', 0, 0)`.execute(
      db,
    );
    // One statement, several rows, one of them with the clicks an import brings.
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, max_clicks, created_at, updated_at) VALUES
      ('a', '', 'a', 'https://example.com/a', 'u1', 0, NULL, 1, 1),
      ('b', '', 'b', 'https://example.com/b', 'u1', 7, NULL, 2, 2),
      ('c', '', 'c', 'https://example.com/c', 'u2', 0, 100, 3, 3),
      ('d', '', 'd', 'https://example.com/d', NULL, 0, NULL, 4, 4)`.execute(db);
    for (const r of (await sql<{ id: string; num: number }>`SELECT id, num FROM links`.execute(db)).rows) nums.set(r.id, Number(r.num));
  });
  afterAll(async () => {
    await one?.destroy();
    await storage?.close();
    await tdb?.drop();
  });

  /** Each link's (click_count, last click or 0) beside its link_click_order row's. */
  async function pairs(): Promise<Pair[]> {
    const rows = await sql<{
      id: string;
      owner_id: string | null;
      click_count: string;
      last: string;
      o_owner: string | null;
      o_count: string | null;
      o_last: string | null;
    }>`SELECT l.id, l.owner_id, l.click_count, coalesce(l.last_click_at, 0) AS last, o.owner_id AS o_owner, o.click_count AS o_count, o.last_click_key AS o_last
      FROM links l LEFT JOIN link_click_order o ON o.link_id = l.id ORDER BY l.id`.execute(db);
    return rows.rows.map((r) => {
      expect(r.o_count === null || r.o_owner === r.owner_id, `owner of ${r.id}`).toBe(true);
      return {
        id: r.id,
        owner: r.owner_id,
        links: [Number(r.click_count), Number(r.last)],
        order: r.o_count === null ? null : [Number(r.o_count), Number(r.o_last)],
      };
    });
  }

  const click = (linkId: string, at: number): ClickInput => ({
    linkId,
    linkNum: nums.get(linkId)!,
    at,
    userAgent: UA,
    referer: "",
    ip: "",
    country: null,
    counted: false,
    destination: null,
  });

  it("is filled by inserts of several rows, imported counts included", async () => {
    const got = await pairs();
    expect(got.map((p) => [p.id, p.order])).toEqual([
      ["a", [0, 0]],
      ["b", [7, 0]],
      ["c", [0, 0]],
      ["d", [0, 0]],
    ]);
  });

  it("follows the click writer's batches, and the writer's updates of links are HOT", async () => {
    const stats = async () => {
      await sql`SELECT pg_stat_force_next_flush()`.execute(one);
      await sql`SELECT 1`.execute(one);
      const r = await sql<{ upd: string; hot: string }>`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'links'`.execute(
        one,
      );
      return { upd: Number(r.rows[0]!.upd), hot: Number(r.rows[0]!.hot) };
    };
    const writer = new PostgresClickWriter(one, new CountryResolver(null));
    const before = await stats();
    await writer.write(batchOf([click("a", AT), click("a", AT + 5), click("b", AT + 2), click("d", AT + 1)]));
    await writer.write(batchOf([click("a", AT + 9), click("b", AT + 1)]));
    await writer.write(batchOf([click("d", AT + 20), click("b", AT + 30)]));
    const after = await stats();
    // Three batches: a, b, d; a, b; d, b.
    expect(after.upd - before.upd).toBe(7);
    expect(after.hot - before.hot).toBe(7);
    const got = await pairs();
    expect(got.map((p) => [p.id, p.links, p.order])).toEqual([
      ["a", [3, AT + 9], [3, AT + 9]],
      ["b", [10, AT + 30], [10, AT + 30]],
      ["c", [0, 0], [0, 0]],
      ["d", [2, AT + 20], [2, AT + 20]],
    ]);
  });

  it("follows a click-limited count, an owner change and an import's counts, and leaves rows alone otherwise", async () => {
    const xmin = async () => (await sql<{ x: string }>`SELECT xmin::text AS x FROM link_click_order WHERE link_id = 'a'`.execute(db)).rows[0]!.x;
    const was = await xmin();
    await sql`UPDATE links SET title = 'new title', updated_at = 5 WHERE id = 'a'`.execute(db);
    expect(await xmin()).toBe(was);
    // As the recorder counts a click-limited visit (recorder.ts countLimited).
    await sql`UPDATE links SET click_count = click_count + 1, last_click_at = ${AT + 40} WHERE id = 'c' AND click_count < max_clicks`.execute(db);
    await sql`UPDATE links SET owner_id = 'u2' WHERE id = 'a'`.execute(db);
    await sql`UPDATE links SET click_count = 0, last_click_at = NULL WHERE id = 'd'`.execute(db);
    const got = await pairs();
    expect(got.map((p) => [p.id, p.owner, p.order])).toEqual([
      ["a", "u2", [3, AT + 9]],
      ["b", "u1", [10, AT + 30]],
      ["c", "u2", [1, AT + 40]],
      ["d", null, [0, 0]],
    ]);
  });

  it("loses the rows of deleted links, directly or with their owner", async () => {
    await sql`DELETE FROM links WHERE id = 'd'`.execute(db);
    await sql`DELETE FROM users WHERE id = 'u2'`.execute(db);
    const left = await sql<{ link_id: string }>`SELECT link_id FROM link_click_order ORDER BY link_id`.execute(db);
    expect(left.rows.map((r) => r.link_id)).toEqual(["b"]);
    expect((await pairs()).map((p) => p.id)).toEqual(["b"]);
  });

  it("is what the list's sort by clicks walks for an owner of many links: no sort of the owner's links", async () => {
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at)
      SELECT 'm' || i, '', 'm' || i, 'https://example.com/', 'u1', i % 97, i, i FROM generate_series(1, 5000) AS i`.execute(db);
    const counts = await sql<{ n: string; s: string }>`SELECT count(*) AS n, sum(click_count) AS s FROM link_click_order WHERE owner_id = 'u1'`.execute(db);
    expect([Number(counts.rows[0]!.n), Number(counts.rows[0]!.s)]).toEqual([5_001, 10 + 238_887]);
    await sql`ANALYZE links`.execute(db);
    await sql`ANALYZE link_click_order`.execute(db);
    const plan = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT o.link_id FROM link_click_order o JOIN links ON links.id = o.link_id
      WHERE o.owner_id = 'u1' ORDER BY o.click_count DESC, o.link_id DESC LIMIT 21`.execute(db);
    const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toMatch(/Index (Only )?Scan Backward using link_click_order_clicks/);
    expect(text).not.toMatch(/\bSort\b/);
  });
});

// Migration 067: PL/pgSQL plans a trigger's statement once per connection, with the size of the first transition
// table it meets. Without it, a first UPDATE (or DELETE) of 1,000 links left the connection a hash join that read the
// whole of link_click_order for every later statement, one link included.
describe.runIf(ENGINES.includes("postgres"))("PostgreSQL triggers on links join by index, whatever their first statement (migration 067)", () => {
  const dbs: TestDatabase[] = [];
  const opened: Storage[] = [];
  afterAll(async () => {
    for (const s of opened) await s.close();
    for (const d of dbs) await d.drop();
  });

  /** The plans auto_explain gives of the triggers' statements, on one connection, after a first statement of 1,000 links. */
  async function triggerPlans(upTo?: string): Promise<{ update: string; delete: string; clicks: string }> {
    const tdb = await createTestDatabase("postgres");
    dbs.push(tdb);
    const storage = await openStorage({ kind: "postgres", url: tdb.databaseUrl as string });
    opened.push(storage);
    if (upTo) await migrateTo(storage, upTo);
    else await migrateToLatest(storage);
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'x', 0, 0)`.execute(storage.db);
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at)
      SELECT 'p' || i, '', 'p' || i, 'https://example.com/', 'u1', 0, i, i FROM generate_series(1, 5000) AS i`.execute(storage.db);
    await sql`ANALYZE links`.execute(storage.db);
    await sql`ANALYZE link_click_order`.execute(storage.db);
    const c = new pg.Client({ connectionString: tdb.databaseUrl as string });
    await c.connect();
    const notices: string[] = [];
    c.on("notice", (n) => notices.push(n.message ?? ""));
    try {
      await c.query("LOAD 'auto_explain'");
      for (const s of ["log_min_duration = 0", "log_nested_statements = on", "log_level = notice"]) await c.query(`SET auto_explain.${s}`);
      await c.query("UPDATE links SET click_count = click_count + 1 WHERE num <= 1000");
      await c.query("DELETE FROM links WHERE num > 4000");
      notices.length = 0;
      await c.query("UPDATE links SET click_count = click_count + 1 WHERE id = 'p5'");
      await c.query("DELETE FROM links WHERE id = 'p6'");
    } finally {
      await c.end();
    }
    const plan = (start: string) => notices.find((n) => n.includes(`Query Text: ${start}`)) ?? `no plan of ${start}`;
    return { update: plan("UPDATE link_click_order"), delete: plan("DELETE FROM link_click_order"), clicks: plan("DELETE FROM clicks") };
  }

  it("before 067 a single link's update and delete read the whole table; after, each finds its row by the key", async () => {
    const before = await triggerPlans("066-pg-clicks-at");
    expect(before.update).toMatch(/Seq Scan on link_click_order/);
    expect(before.delete).toMatch(/Seq Scan on link_click_order/);
    const after = await triggerPlans();
    for (const p of [after.update, after.delete]) {
      expect(p).toMatch(/Index Scan using link_click_order_pkey/);
      expect(p).not.toMatch(/Seq Scan on link_click_order|Hash Join|Merge Join/);
    }
    // The deleted links' clicks: a nested loop over the deleted links, never a hash of every month's clicks.
    expect(after.clicks).toMatch(/Nested Loop/);
    expect(after.clicks).not.toMatch(/Hash Join|Merge Join/);
  });
});
