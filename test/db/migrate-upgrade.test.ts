// Upgrading a database that already holds clicks and roll-ups to the latest schema keeps every row:
// migration 004 rebuilds SQLite's daily roll-up tables, adds clicks.counted and the roll-up progress
// columns, and drops the clicks (at) index.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.each(ENGINES)("upgrade to the latest schema on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("keeps raw clicks (not counted), the daily and monthly roll-ups and the watermark", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "003-rollup-watermark");
    const k = storage.db;
    await sql`INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at) VALUES ('l1', '', 'old-link', 'https://example.com/', 3, 0, 0)`.execute(
      k,
    );
    for (const at of [1_000, 2_000, 3_000]) {
      await sql`INSERT INTO clicks (link_id, at, country, device, os, browser, referrer, is_bot) VALUES ('l1', ${at}, 'NL', 'mobile', 'iOS', 'Safari', 'direct', 0)`.execute(
        k,
      );
    }
    await sql`INSERT INTO click_daily (link_id, day, clicks, bots) VALUES ('l1', '1970-01-01', 3, 0)`.execute(k);
    await sql`INSERT INTO click_breakdown (link_id, day, dimension, value, clicks) VALUES ('l1', '1970-01-01', 'country', 'NL', 3), ('l1', '1970-01-01', 'device', 'mobile', 3)`.execute(
      k,
    );
    await sql`INSERT INTO click_breakdown_month (link_id, month, dimension, value, clicks) VALUES ('l1', '1970-01', 'country', 'NL', 3), ('l1', '2999-05', 'os', 'iOS', 1)`.execute(
      k,
    );
    await sql`UPDATE click_rollup_state SET last_click_id = 3 WHERE id = 1`.execute(k);

    expect(await migrateToLatest(storage)).toContain("004-lean-clicks");

    const clicks = await k.selectFrom("clicks").select(["link_num", "at", "counted"]).orderBy("id").execute();
    expect(clicks.map((c) => [Number(c.link_num), Number(c.at), Number(c.counted)])).toEqual([
      [1, 1000, 0],
      [1, 2000, 0],
      [1, 3000, 0],
    ]);
    const daily = await k.selectFrom("click_daily").selectAll().execute();
    expect(daily.map((d) => [d.link_id, d.day, Number(d.clicks), Number(d.bots)])).toEqual([["l1", "1970-01-01", 3, 0]]);
    const breakdown = await k.selectFrom("click_breakdown").select(["dimension", "value", "clicks"]).orderBy("dimension").execute();
    expect(breakdown.map((b) => [b.dimension, b.value, Number(b.clicks)])).toEqual([
      ["country", "NL", 3],
      ["device", "mobile", 3],
    ]);
    expect(Number((await k.selectFrom("click_breakdown_month").select("clicks").where("month", "=", "1970-01").executeTakeFirstOrThrow()).clicks)).toBe(3);
    const state = await k.selectFrom("click_rollup_state").selectAll().executeTakeFirstOrThrow();
    expect([Number(state.last_click_id), state.epoch_to, state.epoch_link]).toEqual([3, null, null]);
    // 005 (SQLite) and 030 (PostgreSQL): the monthly rows so far were kept complete, through the latest
    // month that has any.
    expect([state.months_through, state.compact_to, state.compact_link]).toEqual(["2999-05", null, null]);
    // Upserts still find their primary keys after the rebuild; a deleted link takes its roll-ups along.
    await sql`INSERT INTO click_breakdown (link_id, day, dimension, value, clicks) VALUES ('l1', '1970-01-01', 'country', 'NL', 1)
      ON CONFLICT (link_id, dimension, day, value) DO UPDATE SET clicks = click_breakdown.clicks + excluded.clicks`.execute(k);
    const nl = await k.selectFrom("click_breakdown").select("clicks").where("value", "=", "NL").executeTakeFirstOrThrow();
    expect(Number(nl.clicks)).toBe(4);
    await k.deleteFrom("links").where("id", "=", "l1").execute();
    expect(await k.selectFrom("click_daily").selectAll().execute()).toEqual([]);
    expect(await k.selectFrom("click_breakdown").selectAll().execute()).toEqual([]);
    expect(await k.selectFrom("click_breakdown_month").selectAll().execute()).toEqual([]);
    expect(await k.selectFrom("clicks").selectAll().execute()).toEqual([]);
  });
});
