// Migration 065 on a PostgreSQL database with compacted months: each link's base_count is the sum of its monthly
// device rows of the months before the last compacted one (later months, other dimensions and links without rows
// count nothing), new links and the list's triggers leave it alone, and no index holds it.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.runIf(process.env.TEST_DATABASE_URL)("migration 065 (PostgreSQL links' counts before the last compacted month)", () => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("fills base_count from the monthly device rows before months_through", async () => {
    db = await createTestDatabase("postgres");
    storage = await openTestStorage(db);
    await migrateTo(storage, "064-pg-click-daily-day");
    const k = storage.db;
    await sql`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'x', 0, 0)`.execute(k);
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at) VALUES
      ('l1', '', 'a1', 'https://example.com/', 'u1', 40, 0, 0), ('l2', '', 'a2', 'https://example.com/', 'u1', 9, 0, 0),
      ('l3', '', 'a3', 'https://example.com/', NULL, 0, 0, 0)`.execute(k);
    // l1: 10 + 5 clicks in August (two devices), 3 in September, 20 in October; l2: 9 in October only.
    await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks, visitors) VALUES
      ('l1', '2026-08', 'device', 'desktop', 10, 4), ('l1', '2026-08', 'device', 'mobile', 5, 5), ('l1', '2026-08', 'country', 'NL', 15, 9),
      ('l1', '2026-09', 'device', 'desktop', 3, 3), ('l1', '2026-10', 'device', 'desktop', 20, 8), ('l2', '2026-10', 'device', 'bot', 9, 0)`.execute(k);
    await sql`UPDATE click_rollup_state SET months_through = '2026-10'`.execute(k);

    expect(await migrateToLatest(storage)).toContain("065-pg-recent-clicks");
    const rows = await sql<{ link_id: string; base: string; recent: string }>`
      SELECT link_id, base_count AS base, click_count - base_count AS recent FROM link_click_order ORDER BY link_id`.execute(k);
    expect(rows.rows.map((r) => [r.link_id, Number(r.base), Number(r.recent)])).toEqual([
      ["l1", 18, 22],
      ["l2", 0, 9],
      ["l3", 0, 0],
    ]);
    // A new link counts nothing before; the list's triggers leave base_count alone when clicks are added.
    await sql`INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at) VALUES ('l4', '', 'a4', 'https://example.com/', 'u1', 2, 0, 0)`.execute(
      k,
    );
    await sql`UPDATE links SET click_count = click_count + 5 WHERE id IN ('l1', 'l4')`.execute(k);
    const after = await sql<{ link_id: string; base: string; recent: string }>`
      SELECT link_id, base_count AS base, click_count - base_count AS recent FROM link_click_order WHERE link_id IN ('l1', 'l4') ORDER BY link_id`.execute(k);
    expect(after.rows.map((r) => [r.link_id, Number(r.base), Number(r.recent)])).toEqual([
      ["l1", 18, 27],
      ["l4", 0, 7],
    ]);
    // No index holds it: the writer's update of link_click_order writes to the same three as before.
    const indexes = await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'link_click_order' ORDER BY 1`.execute(k);
    expect(indexes.rows.map((r) => r.name)).toEqual(["link_click_order_clicks", "link_click_order_last_click", "link_click_order_pkey"]);
  });
});
