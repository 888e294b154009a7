// PostgreSQL compacts a month's monthly breakdown rows once it is over (src/clicks/pg-months.ts),
// as SQLite does: statistics must be the same before, during and after a compaction, a compaction
// cut short resumes where it stopped, late clicks of a month are counted exactly once in both
// roll-ups, and writers of several instances racing a compaction (and two instances compacting at
// once) leave the monthly rows equal to the sums of the daily ones, and the owners' monthly rows (migration
// 062) equal to the sums of their links'.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { COMPACT_LINKS, compactMonths } from "../../src/clicks/pg-months.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { StatsService } from "../../src/clicks/stats.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { createTestDatabase, openTestStorage, type TestDatabase } from "../helpers/engines.js";

const LINKS = COMPACT_LINKS * 2 + 300; // three compaction chunks
const OCT = Date.UTC(2026, 9, 10, 12);
const NOV = Date.UTC(2026, 10, 2, 12);
const DEC = Date.UTC(2026, 11, 3, 12);
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const countries = new CountryResolver(null);
const id = (i: number) => `link_${String(i).padStart(5, "0")}`;
let db: TestDatabase;
let storage: Storage;
/** links.num of link i (PostgreSQL's sequence: not necessarily i + 1). */
const nums: number[] = [];

const click = (i: number, at: number, country: string, ip = ""): ClickInput => ({
  linkId: id(i),
  linkNum: nums[i]!,
  at,
  userAgent: UA,
  referer: "",
  ip,
  country,
  counted: false,
  destination: null,
});
const writer = () => new PostgresClickWriter(storage.db, countries);
const state = async () =>
  (
    await sql<{
      months_through: string;
      compact_to: string | null;
      compact_link: string | null;
    }>`SELECT months_through, compact_to, compact_link FROM click_rollup_state`.execute(storage.db)
  ).rows[0];
const count = async (q: ReturnType<typeof sql<{ n: string }>>) => Number((await q.execute(storage.db)).rows[0]!.n);
/** Rows where the monthly roll-up and the sum of the daily one disagree for a month (either side missing counts). */
const mismatches = (month: string) =>
  count(sql<{
    n: string;
  }>`WITH d AS (SELECT link_id, dimension, value, sum(clicks) AS clicks, sum(visitors) AS visitors FROM click_breakdown WHERE substr(day, 1, 7) = ${month} GROUP BY 1, 2, 3),
    m AS (SELECT link_id, dimension, value, clicks, visitors FROM click_breakdown_month WHERE month = ${month})
    SELECT count(*) AS n FROM ((SELECT * FROM d EXCEPT SELECT * FROM m) UNION ALL (SELECT * FROM m EXCEPT SELECT * FROM d)) AS x`);
/** Owner monthly rows that differ from the sum of their links' monthly rows (any month; links without an owner left out). */
const ownerMismatches = () =>
  count(sql<{
    n: string;
  }>`WITH l AS (SELECT links.owner_id, m.month, m.dimension, m.value, sum(m.clicks) AS clicks, sum(m.visitors) AS visitors
      FROM click_breakdown_month m JOIN links ON links.id = m.link_id WHERE links.owner_id IS NOT NULL GROUP BY 1, 2, 3, 4),
    o AS (SELECT owner_id, month, dimension, value, clicks, visitors FROM owner_breakdown_month WHERE clicks <> 0 OR visitors <> 0)
    SELECT count(*) AS n FROM ((SELECT * FROM l EXCEPT SELECT * FROM o) UNION ALL (SELECT * FROM o EXCEPT SELECT * FROM l)) AS x`);
/** Links whose base_count (migration 065) is not the sum of their monthly device rows of the months before `through`. */
const baseMismatches = (through: string) =>
  count(sql<{ n: string }>`SELECT count(*) AS n FROM link_click_order o
    LEFT JOIN (SELECT link_id, sum(clicks) AS clicks FROM click_breakdown_month WHERE dimension = 'device' AND month < ${through} GROUP BY link_id) AS s
      ON s.link_id = o.link_id
    WHERE o.base_count <> coalesce(s.clicks, 0)`);
const baseTotal = () => count(sql<{ n: string }>`SELECT sum(base_count) AS n FROM link_click_order`);
const monthlyRows = (month: string) => count(sql<{ n: string }>`SELECT count(*) AS n FROM click_breakdown_month WHERE month = ${month}`);

async function octoberCountries(linkIndex: number) {
  const stats = new StatsService({ db: storage.db, clock: new ManualClock(NOV) });
  const link = await storage.db.selectFrom("links").selectAll().where("id", "=", id(linkIndex)).executeTakeFirstOrThrow();
  const s = await stats.forLink(link, "pro", { from: "2026-10-01", to: "2026-10-31" });
  if (!s.advanced) throw new Error("advanced statistics expected");
  return s.countries;
}

describe.runIf(process.env.TEST_DATABASE_URL)("PostgreSQL's monthly compaction", () => {
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    storage = await openTestStorage(db);
    await migrateToLatest(storage);
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u0', 'u0@example.com', 'x', 0, 0), ('u1', 'u1@example.com', 'x', 0, 0)`.execute(
      storage.db,
    );
    // Owners u0 and u1 by turns; every third link has none.
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at)
      SELECT 'link_' || lpad(i::text, 5, '0'), '', 'a' || i, 'https://example.com/', CASE WHEN i % 3 = 2 THEN NULL ELSE 'u' || (i % 3) END, 0, 0, 0
      FROM generate_series(0, ${LINKS - 1}) AS i`.execute(storage.db);
    const rows = await storage.db.selectFrom("links").select(["id", "num"]).execute();
    for (const r of rows) nums[Number(r.id.slice(5))] = Number(r.num);
    // Whatever today is: September is the last month the monthly roll-up holds.
    await sql`UPDATE click_rollup_state SET months_through = '2026-09'`.execute(storage.db);
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("compacts October once November's clicks arrive, resumes where it stopped, and counts late clicks once", async () => {
    // October: link i gets i % 3 + 1 clicks from NL, one from DE; link 7 also 4 from BR.
    const october: ClickInput[] = [];
    for (let i = 0; i < LINKS; i++) {
      for (let k = 0; k <= i % 3; k++) october.push(click(i, OCT + i * 10 + k, "NL"));
      october.push(click(i, OCT + i * 10 + 5, "DE"));
    }
    for (let k = 0; k < 4; k++) october.push(click(7, OCT + 100_000 + k, "BR"));
    const first = writer();
    await first.write(batchOf(october));
    await first.flushRollups();
    // Only October so far: nothing compacted, statistics read October from the daily rows.
    expect(await monthlyRows("2026-10")).toBe(0);
    expect(await state()).toEqual({ months_through: "2026-09", compact_to: null, compact_link: null });
    const expected7 = [
      { country: "BR", clicks: 4, visitors: 0 },
      { country: "NL", clicks: 2, visitors: 1 },
      { country: "DE", clicks: 1, visitors: 0 },
    ];
    expect(await octoberCountries(7)).toEqual(expected7);

    // November's first clicks: the compaction of October starts, one chunk (the rest is "cut short").
    await first.write(batchOf([click(1, NOV, "NL"), click(2, NOV + 1, "NL")]));
    await compactMonths(storage.db, "2026-11", 1);
    const byNum = [...nums].sort((a, b) => a - b);
    expect(await state()).toEqual({ months_through: "2026-09", compact_to: "2026-10", compact_link: String(byNum[COMPACT_LINKS - 1]) });
    expect(await count(sql<{ n: string }>`SELECT count(DISTINCT link_id) AS n FROM click_breakdown_month WHERE month = '2026-10'`)).toBe(COMPACT_LINKS);
    expect(await ownerMismatches()).toBe(0);
    // Mid-compaction, statistics still read October from the daily rows.
    expect(await octoberCountries(7)).toEqual(expected7);
    const late = LINKS - 1; // a link of the last chunk
    expect(await octoberCountries(late)).toEqual([
      { country: "DE", clicks: 1, visitors: 0 },
      { country: "NL", clicks: 1, visitors: 1 },
    ]);

    // Late October clicks from another instance's writer: link 7 is compacted (its monthly rows are
    // updated too), `late` is not (the compaction will add it); then the compaction resumes.
    const other = writer();
    await other.write(batchOf([click(7, OCT + 200_000, "DE"), click(late, OCT + 200_001, "BR"), click(late, OCT + 200_002, "BR")]));
    await other.flushRollups();
    expect(await state()).toEqual({ months_through: "2026-10", compact_to: null, compact_link: null });
    expect(await mismatches("2026-10")).toBe(0);
    expect(await ownerMismatches()).toBe(0);
    expect(await monthlyRows("2026-11")).toBe(0);
    // The links' counts before the last compacted month: September's, none.
    expect([await baseMismatches("2026-10"), await baseTotal()]).toEqual([0, 0]);
    expect((await octoberCountries(7)).find((c) => c.country === "DE")?.clicks).toBe(2);
    expect((await octoberCountries(late)).find((c) => c.country === "BR")?.clicks).toBe(2);

    // After the compaction: a late October click goes to both roll-ups; November stays daily-only.
    await other.write(batchOf([click(late, OCT + 300_000, "NL"), click(3, NOV + 10, "DE")]));
    expect(await mismatches("2026-10")).toBe(0);
    expect(await monthlyRows("2026-11")).toBe(0);
    // Every October click is in the monthly rows exactly once (5 dimensions each).
    const octoberClicks = october.length + 3 + 1;
    expect(await count(sql<{ n: string }>`SELECT sum(clicks) AS n FROM click_breakdown_month WHERE month = '2026-10'`)).toBe(octoberClicks * 5);
    expect(await ownerMismatches()).toBe(0);
  });

  it("stays exact while writers of several instances race a compaction run by two instances at once", async () => {
    // November's clicks are daily-only (October is compacted above); December's first click starts November's compaction.
    const writers = [writer(), writer(), writer(), writer()];
    const lateNovember = (w: number, round: number) =>
      batchOf(
        Array.from({ length: 400 }, (_, k) =>
          click((w * 997 + round * 131 + k * 7) % LINKS, NOV + 3_600_000 + round * 1000 + k, k % 2 ? "NL" : "FR", `10.0.${w}.${k % 50}`),
        ),
      );
    await writers[0]!.write(batchOf([click(5, DEC, "NL")]));
    let compacting = true;
    const compactors = [0, 1].map(async () => {
      while (compacting) await compactMonths(storage.db, "2026-12", 1);
    });
    await Promise.all(
      writers.map(async (w, i) => {
        for (let round = 0; round < 12; round++) await w.write(lateNovember(i, round));
      }),
    );
    compacting = false;
    await Promise.all(compactors);
    await compactMonths(storage.db, "2026-12");
    expect((await state())?.months_through).toBe("2026-11");
    expect(await mismatches("2026-11")).toBe(0);
    expect(await mismatches("2026-10")).toBe(0);
    expect(await ownerMismatches()).toBe(0);
    expect(await monthlyRows("2026-12")).toBe(0);
    // Every link's count before November holds its October clicks, the late ones included: once, whoever compacted.
    expect(await baseMismatches("2026-11")).toBe(0);
    // October: i % 3 + 2 clicks of each link i, link 7's 4 from BR, and the 3 + 1 late ones of the first test.
    expect(await baseTotal()).toBe(Array.from({ length: LINKS }, (_, i) => (i % 3) + 2).reduce((a, b) => a + b) + 4 + 3 + 1);
    // 4 writers x 12 rounds x 400 late clicks, plus the 1 + 2 November clicks of the first test.
    expect(await count(sql<{ n: string }>`SELECT sum(clicks) AS n FROM click_breakdown_month WHERE month = '2026-11' AND dimension = 'country'`)).toBe(
      4 * 12 * 400 + 3,
    );
    // A deleted link's rows leave its owner's (link 4 is u1's).
    const before = await count(sql<{ n: string }>`SELECT sum(clicks) AS n FROM owner_breakdown_month WHERE owner_id = 'u1' AND dimension = 'country'`);
    const its = await count(sql<{ n: string }>`SELECT sum(clicks) AS n FROM click_breakdown_month WHERE link_id = ${id(4)} AND dimension = 'country'`);
    expect(its).toBeGreaterThan(0);
    await sql`DELETE FROM links WHERE id = ${id(4)}`.execute(storage.db);
    expect(await count(sql<{ n: string }>`SELECT sum(clicks) AS n FROM owner_breakdown_month WHERE owner_id = 'u1' AND dimension = 'country'`)).toBe(
      before - its,
    );
    expect(await ownerMismatches()).toBe(0);
  });
});
