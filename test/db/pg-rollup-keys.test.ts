// PostgreSQL's roll-up rows have no foreign key to links (migration 068: the key's check cost each new row about
// 40 % of its write); a statement trigger deletes a link's rows in the four tables with it, directly, several at
// once, or with its owner, and leaves every other link's rows. The click writer writes rows only for links it has
// locked, so a link deleted before its batch leaves none (test/db/deleted-link-clicks.test.ts, both engines).
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";
import { ENGINES, createTestDatabase, type TestDatabase } from "../helpers/engines.js";
import { UA } from "../helpers/visit.js";

const ROLLUPS = ["click_daily", "click_hourly", "click_breakdown", "click_breakdown_month"] as const;

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL roll-up rows without a foreign key (migration 068)", () => {
  let tdb: TestDatabase;
  let storage: Storage;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    storage = await openStorage({ kind: "postgres", url: tdb.databaseUrl as string });
    await migrateTo(storage, "067-pg-trigger-joins");
  });
  afterAll(async () => {
    await storage?.close();
    await tdb?.drop();
  });

  /** Each link's number of rows in each roll-up table, "link:table:n", sorted. */
  async function rowsByLink(): Promise<string[]> {
    const out: string[] = [];
    for (const t of ROLLUPS) {
      const r = await sql<{ link_id: string; n: string }>`SELECT link_id, count(*) AS n FROM ${sql.table(t)} GROUP BY link_id`.execute(storage.db);
      for (const x of r.rows) out.push(`${x.link_id}:${t}:${x.n}`);
    }
    return out.sort();
  }

  it("drops the four keys; a link's rows go with it, alone, several at once and with its owner", async () => {
    const keys = async () =>
      (
        await sql<{ t: string }>`SELECT conrelid::regclass::text AS t FROM pg_constraint WHERE contype = 'f' AND confrelid = 'links'::regclass
          AND conrelid::regclass::text IN ('click_daily', 'click_hourly', 'click_breakdown', 'click_breakdown_month') ORDER BY 1`.execute(storage.db)
      ).rows.map((r) => r.t);
    expect(await keys()).toEqual(["click_breakdown", "click_breakdown_month", "click_daily", "click_hourly"]);
    await migrateToLatest(storage);
    expect(await keys()).toEqual([]);

    const db = storage.db;
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'x', 0, 0), ('u2', 'u2@example.com', 'x', 0, 0)`.execute(
      db,
    );
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at)
      SELECT 'k' || i, '', 'k' || i, 'https://example.com/', CASE WHEN i <= 4 THEN 'u1' ELSE 'u2' END, 0, i, i FROM generate_series(1, 6) AS i`.execute(db);
    const nums = new Map((await sql<{ id: string; num: string }>`SELECT id, num FROM links`.execute(db)).rows.map((r) => [r.id, Number(r.num)]));
    const click = (linkId: string, at: number): ClickInput => ({
      linkId,
      linkNum: nums.get(linkId)!,
      at,
      userAgent: UA.windows,
      referer: "https://news.example.org/",
      ip: "",
      country: null,
      counted: false,
      destination: null,
    });
    // A past month's clicks (its monthly rows written at once: no compaction recorded yet keeps them all) and today's.
    const writer = new PostgresClickWriter(db, new CountryResolver(null));
    const past = Date.UTC(2026, 0, 10, 12);
    await writer.write(batchOf([...nums.keys()].flatMap((id) => [click(id, past), click(id, Date.now())])));
    const before = await rowsByLink();
    const of = (ids: string[]) => before.filter((r) => ids.includes(r.split(":")[0]!));
    for (const id of nums.keys())
      for (const t of ROLLUPS)
        expect(
          before.some((r) => r.startsWith(`${id}:${t}:`)),
          `${id} in ${t}`,
        ).toBe(true);

    await sql`DELETE FROM links WHERE id = 'k1'`.execute(db);
    expect(await rowsByLink()).toEqual(of(["k2", "k3", "k4", "k5", "k6"]));
    await sql`DELETE FROM links WHERE id IN ('k2', 'k3')`.execute(db);
    expect(await rowsByLink()).toEqual(of(["k4", "k5", "k6"]));
    // The owner's deletion deletes its links (their foreign key to users cascades), and their rows with them.
    await sql`DELETE FROM users WHERE id = 'u2'`.execute(db);
    expect(await rowsByLink()).toEqual(of(["k4"]));
  });
});
