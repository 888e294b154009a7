// PostgreSQL's long tail (issue 16): under load the roll-up groups of a link's few clicks in a batch wait
// in click_pending, out of the roll-ups and counts (the raw clicks are stored), until a roll-up takes them. Reads add them (every figure exact at
// every moment), any writer's roll-up moves any writer's pending clicks exactly once (a crashed
// instance's included), and concurrent roll-ups never move a click twice.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter, pendingGroups } from "../../src/clicks/pg-writer.js";
import { ClickReads } from "../../src/clicks/click-reads.js";
import { StatsService } from "../../src/clicks/stats.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { systemClock } from "../../src/shared/clock.js";
import type { LinkRow } from "../../src/storage/schema.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { ENGINES, createTestDatabase, type TestDatabase } from "../helpers/engines.js";

const UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const LINKS = 1_500;
const id = (i: number) => `tail_${String(i).padStart(5, "0")}`;

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL pending clicks (a long tail under load)", () => {
  let db: TestDatabase;
  let storage: Storage;
  let reads: ClickReads;
  let stats: StatsService;
  const countries = new CountryResolver(null);
  /** Link i has number i + 1 (inserted in order into a new database). */
  const click = (i: number, at = Date.now()): ClickInput => ({ linkId: id(i), linkNum: i + 1, at, userAgent: UA, referer: "https://news.example/x", ip: "", country: "NL", counted: false });
  const count = async (q: string) => Number((await sql<{ n: number }>`${sql.raw(q)}`.execute(storage.db)).rows[0]!.n);
  const link = async (i: number) => (await storage.db.selectFrom("links").selectAll().where("id", "=", id(i)).executeTakeFirstOrThrow()) as LinkRow;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    storage = await openStorage({ kind: "postgres", url: db.databaseUrl as string });
    await migrateToLatest(storage);
    await sql`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at)
      SELECT 'tail_' || lpad(g::text, 5, '0'), '', 'a' || g, 'https://example.com/', 0, 0, 0 FROM generate_series(0, ${LINKS - 1}) g ORDER BY g`.execute(storage.db);
    reads = new ClickReads({ db: storage.db, heldBack: () => null, storedHeldBack: pendingGroups });
    stats = new StatsService({ db: storage.db, clock: systemClock, reads });
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("a large batch: busy links written with it, the tail pending; every read exact before and after the roll-up", async () => {
    // Link 0: 10 clicks (written with the batch); links 1..1,499: one each, link 1 three (pending).
    const batch = [...Array.from({ length: 10 }, () => click(0)), ...Array.from({ length: LINKS - 1 }, (_, i) => click(i + 1)), click(1), click(1)];
    const writer = new PostgresClickWriter(storage.db, countries);
    await writer.write(batchOf(batch));
    expect(await count("SELECT count(*)::int AS n FROM clicks")).toBe(batch.length);
    // One group per tail link (link 1's three clicks are alike).
    expect(await count("SELECT count(*)::int AS n FROM click_pending")).toBe(LINKS - 1);
    expect(await count("SELECT sum(clicks)::int AS n FROM click_pending")).toBe(LINKS - 1 + 2);
    expect(await count("SELECT sum(click_count)::int AS n FROM links")).toBe(10);
    const fresh = async () => reads.counts([0, 1, 2, LINKS - 1].map((i) => ({ id: id(i), num: i + 1 })));
    const want = new Map([
      [id(0), 10],
      [id(1), 3],
      [id(2), 1],
      [id(LINKS - 1), 1],
    ]);
    expect(await fresh()).toEqual(want);
    const before = await stats.forLink(await link(1), "pro", {});
    expect(before).toMatchObject({ total_clicks: 3, range_clicks: 3, devices: [{ device: "mobile", clicks: 3 }], countries: [{ country: "NL", clicks: 3 }], referrers: [{ referrer: "news.example", clicks: 3 }] });
    await writer.flushRollups();
    expect(await count("SELECT count(*)::int AS n FROM click_pending")).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM clicks")).toBe(batch.length);
    expect(await count("SELECT sum(click_count)::int AS n FROM links")).toBe(batch.length);
    expect(await count("SELECT sum(clicks)::int AS n FROM click_daily")).toBe(batch.length);
    expect(await count("SELECT sum(clicks)::int AS n FROM click_breakdown_month WHERE dimension = 'os'")).toBe(batch.length);
    expect(await fresh()).toEqual(want);
    expect(await stats.forLink(await link(1), "pro", {})).toEqual(before);
  });

  it("a writer that died leaves its pending clicks to the next writer's recovery, counted once; concurrent roll-ups move each once", async () => {
    const base = await count("SELECT sum(click_count)::int AS n FROM links");
    const dying = new PostgresClickWriter(storage.db, countries);
    await dying.write(batchOf(Array.from({ length: 1_200 }, (_, i) => click(i + 100))));
    await dying.write(batchOf(Array.from({ length: 1_200 }, (_, i) => click(i + 200))));
    expect(await count("SELECT sum(clicks)::int AS n FROM click_pending")).toBe(2_400);
    // Two instances' roll-ups at once, and a start-up recovery: each pending click moved once.
    await Promise.all([new PostgresClickWriter(storage.db, countries).recover(), new PostgresClickWriter(storage.db, countries).flushRollups(), dying.flushRollups()]);
    expect(await count("SELECT count(*)::int AS n FROM click_pending")).toBe(0);
    expect(await count("SELECT sum(click_count)::int AS n FROM links")).toBe(base + 2_400);
    expect(await count("SELECT count(*)::int AS n FROM clicks")).toBe(base + 2_400);
    expect(await count("SELECT sum(clicks)::int AS n FROM click_daily")).toBe(base + 2_400);
    // Link 250: one click in the first test, one from each batch here.
    expect((await reads.counts([{ id: id(250), num: 251 }])).get(id(250))).toBe(3);
    await new PostgresClickWriter(storage.db, countries).recover();
    expect(await count("SELECT sum(click_count)::int AS n FROM links")).toBe(base + 2_400);
  });

  it("a link deleted with clicks pending takes them along; the roll-up skips it", async () => {
    const writer = new PostgresClickWriter(storage.db, countries);
    await writer.write(batchOf(Array.from({ length: 1_100 }, (_, i) => click(i + 300))));
    await storage.db.deleteFrom("links").where("id", "=", id(300)).execute();
    expect(await count(`SELECT count(*)::int AS n FROM click_pending WHERE link_num = 301`)).toBe(0);
    const before = await count("SELECT count(*)::int AS n FROM clicks");
    const counted = await count("SELECT sum(click_count)::int AS n FROM links");
    // A batch that took its clicks before the delete and is written after it (a long tail's links are not locked).
    await writer.write(batchOf(Array.from({ length: 1_000 }, (_, i) => click(i + 300))));
    expect(await count(`SELECT count(*)::int AS n FROM clicks WHERE link_num = 301`)).toBe(1);
    await writer.flushRollups();
    expect(await count(`SELECT count(*)::int AS n FROM clicks WHERE link_num = 301`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM click_pending`)).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM clicks")).toBe(before + 999);
    expect(await count("SELECT sum(click_count)::int AS n FROM links")).toBe(counted + 1_099 + 999);
    expect(await count(`SELECT count(*)::int AS n FROM click_daily WHERE link_id = '${id(300)}'`)).toBe(0);
  });
});
