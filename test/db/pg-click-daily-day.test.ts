// PostgreSQL's click_daily by day (migration 064): a short period's rows of every link are found through the day
// index when the rows lie by day as the writer leaves them (account analytics' top links over 7d, bench:big), and
// the writer's upsert of a day's row stays a HOT update (the index holds `day` alone, which no update changes).
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

const LINKS = 2_000;
const DAYS = 60;

describe.runIf(ENGINES.includes("postgres"))("PostgreSQL click_daily by day", () => {
  const open: Storage[] = [];
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const s of open.reverse()) await s.close();
    for (const d of dbs) await d.drop();
  });

  it("migration 064: a week's rows of every link through click_daily_day; an upsert of a day's row is HOT", async () => {
    const d = await createTestDatabase("postgres");
    dbs.push(d);
    const storage = await openTestStorage(d);
    open.push(storage);
    await migrateTo(storage, "063-pg-click-partitions");
    const db = storage.db;
    await sql`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at)
      SELECT 'l' || l, '', 'a' || l, 'https://example.com/', 0, 0, 0 FROM generate_series(1, ${LINKS}) AS l`.execute(db);
    // Rows laid out day by day, as the writer inserts them (each link's row at its first click of the day).
    await sql`INSERT INTO click_daily (link_id, day, clicks, bots, visitors, qr)
      SELECT 'l' || l, to_char(date '2026-01-01' + d, 'YYYY-MM-DD'), 1 + (l % 7), 0, 1, 0
      FROM generate_series(0, ${DAYS - 1}) AS d, generate_series(1, ${LINKS}) AS l ORDER BY d, l`.execute(db);
    const week = async () => {
      await sql`ANALYZE click_daily`.execute(db);
      const plan = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT link_id, sum(clicks) FROM click_daily
        WHERE day >= '2026-02-01' AND day <= '2026-02-07' GROUP BY link_id`.execute(db);
      return plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    };
    expect(await week()).toMatch(/Seq Scan on click_daily/);
    expect(await migrateToLatest(storage)).toContain("064-pg-click-daily-day");
    expect(await week()).toMatch(/Index Scan using click_daily_day|Bitmap Index Scan on click_daily_day/);
    const def = await sql<{ def: string }>`SELECT pg_get_indexdef('click_daily_day'::regclass) AS def`.execute(db);
    expect(def.rows[0]!.def).toBe("CREATE INDEX click_daily_day ON public.click_daily USING btree (day)");
    const sums = await sql<{ n: string; total: string }>`SELECT count(*) AS n, sum(clicks) AS total FROM click_daily
      WHERE day >= '2026-02-01' AND day <= '2026-02-07'`.execute(db);
    const perLink = Array.from({ length: LINKS }, (_, l) => 1 + ((l + 1) % 7)).reduce((a, b) => a + b, 0);
    expect({ n: Number(sums.rows[0]!.n), total: Number(sums.rows[0]!.total) }).toEqual({ n: 7 * LINKS, total: 7 * perLink });

    // The writer's statement (pg-writer.ts, writeLinkRollups) on a row of the day whose page has room (the day's
    // first click made it): updated in place, no index touched.
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO click_daily (link_id, day, clicks, bots, visitors, qr) VALUES ('l1', '2026-03-02', 1, 0, 1, 0)`.execute(trx);
      await sql`INSERT INTO click_daily (link_id, day, clicks, bots, visitors, qr) VALUES ('l1', '2026-03-02', 1, 0, 1, 0)
        ON CONFLICT (link_id, day) DO UPDATE SET clicks = click_daily.clicks + excluded.clicks, bots = click_daily.bots + excluded.bots,
          visitors = click_daily.visitors + excluded.visitors, qr = click_daily.qr + excluded.qr`.execute(trx);
      const stats = await sql<{ upd: string; hot: string }>`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables
        WHERE relname = 'click_daily'`.execute(trx);
      expect({ upd: Number(stats.rows[0]!.upd), hot: Number(stats.rows[0]!.hot) }).toEqual({ upd: 1, hot: 1 });
    });
  });
});
