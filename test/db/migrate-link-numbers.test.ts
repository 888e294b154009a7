// Migration 006 numbers every link (links.num, in creation order, never reused) and rebuilds raw
// clicks around it (clicks.link_num). An upgraded database keeps every link and click with all their
// values, the click ids and their sequence (the roll-up watermark compares ids), and every constraint:
// unique ids and (domain, alias), the cascades from users to links and from links to clicks.
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateTo, migrateToLatest } from "../../src/storage/migrate.js";

describe.each(ENGINES)("migration 006 (link numbers) on %s", (engine) => {
  let storage: Storage | undefined;
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it("numbers links in creation order and keeps every click, its id and the id sequence", async () => {
    db = await createTestDatabase(engine);
    storage = await openTestStorage(db);
    await migrateTo(storage, "005-monthly-compaction");
    const k = storage.db;
    await sql`INSERT INTO users (id, email, password_hash, name, plan, status, created_at, updated_at) VALUES ('u1', 'u1@example.com', 'h', '', 'pro', 'active', 0, 0)`.execute(
      k,
    );
    // Ids sort z, m, a; created a (first), z, m.
    await sql`INSERT INTO links (id, domain, alias, url, ios_url, android_url, expires_at, max_clicks, password_hash, click_count, owner_id, created_at, updated_at) VALUES
      ('z-link', '', 'zed', 'https://example.com/z', 'https://apps.example/ios', NULL, 4102444800000, 50, NULL, 2, 'u1', 200, 201),
      ('m-link', 'go.example.org', 'em', 'https://example.com/m', NULL, 'https://apps.example/android', NULL, NULL, 'scrypt$hash', 1, NULL, 300, 301),
      ('a-link', '', 'ay', 'https://example.com/a', NULL, NULL, NULL, NULL, NULL, 1, 'u1', 100, 101)`.execute(k);
    const click = (id: number, link: string, at: number, country: string, counted: number) =>
      sql`INSERT INTO clicks (id, link_id, at, country, device, os, browser, referrer, is_bot, counted) VALUES (${id}, ${link}, ${at}, ${country}, 'mobile', 'iOS', 'Mobile Safari', 't.co', 0, ${counted})`.execute(
        k,
      );
    await click(1, "z-link", 1_000, "NL", 1);
    await click(2, "a-link", 2_000, "DE", 0);
    await click(3, "z-link", 3_000, "FR", 1);
    await click(4, "m-link", 4_000, "JP", 0);
    await click(5, "m-link", 5_000, "JP", 0);
    await sql`INSERT INTO click_daily (link_id, day, clicks, bots) VALUES ('z-link', '1970-01-01', 2, 0), ('m-link', '1970-01-01', 1, 0)`.execute(k);
    // The last click went (retention of a deleted link's rows, say): the sequence stays at 5.
    await sql`DELETE FROM clicks WHERE id = 5`.execute(k);
    if (engine === "postgres") await sql`SELECT setval(pg_get_serial_sequence('clicks', 'id'), 5)`.execute(k);

    // 006 first, then every later migration in order (each branch adds its own: listing them all here
    // would make every new migration edit this line).
    const applied = await migrateToLatest(storage);
    expect(applied.slice(0, 3)).toEqual(["006-link-numbers", "007-click-staging", "008-alias-reservations"]);
    expect(applied).toEqual([...applied].sort());

    const links = await k.selectFrom("links").selectAll().orderBy("num").execute();
    expect(links.map((l) => [Number(l.num), l.id])).toEqual([
      [1, "a-link"],
      [2, "z-link"],
      [3, "m-link"],
    ]);
    expect({ ...links[1], num: undefined }).toEqual({
      num: undefined,
      id: "z-link",
      domain: "",
      alias: "zed",
      url: "https://example.com/z",
      ios_url: "https://apps.example/ios",
      android_url: null,
      expires_at: 4102444800000,
      max_clicks: 50,
      password_hash: null,
      click_count: 2,
      owner_id: "u1",
      created_at: 200,
      updated_at: 201,
      updated_by: null,
      disabled_at: null,
      disabled_status: null,
      disabled_reason: null,
      // Later migrations' columns (018): empty for a link that existed before them.
      title: null,
      note: null,
      archived_at: null,
      expired_url: null,
      preview_title: null,
      preview_description: null,
      preview_image: null,
      last_click_at: null,
      rules: null,
      split: null,
      imported_clicks: 0, // 024
      starts_at: null,
      redirect_status: null,
      crawlable: 0, // 032
      track_conversions: null, // 042: the domain's or account's default
      split_goal: null, // 043
      split_ends_at: null,
      split_min_visits: null,
      split_started_at: null,
      split_decision: null,
      app_ios_store_id: null, // 046
      app_android_package: null,
      app_path: null,
      open_outside: null,
      folder_id: null,
    });
    // 024 counted each account's links.
    const counts = await k.selectFrom("link_counts").selectAll().execute();
    expect(counts.map((c) => [c.owner_id, Number(c.links)])).toEqual([["u1", links.filter((l) => l.owner_id === "u1").length]]);
    expect([links[2]!.domain, links[2]!.android_url, links[2]!.password_hash, links[2]!.owner_id]).toEqual([
      "go.example.org",
      "https://apps.example/android",
      "scrypt$hash",
      null,
    ]);

    const clicks = await k
      .selectFrom("clicks")
      .select(["id", "link_num", "at", "country", "device", "os", "browser", "referrer", "is_bot", "counted"])
      .orderBy("id")
      .execute();
    expect(clicks.map((c) => [Number(c.id), Number(c.link_num), Number(c.at), c.country, Number(c.counted)])).toEqual([
      [1, 2, 1_000, "NL", 1],
      [2, 1, 2_000, "DE", 0],
      [3, 2, 3_000, "FR", 1],
      [4, 3, 4_000, "JP", 0],
    ]);
    expect([clicks[0]!.device, clicks[0]!.os, clicks[0]!.browser, clicks[0]!.referrer, Number(clicks[0]!.is_bot)]).toEqual([
      "mobile",
      "iOS",
      "Mobile Safari",
      "t.co",
      0,
    ]);

    // New rows: a click id after every id handed out; link numbers after the last, never reused.
    const inserted = await k
      .insertInto("clicks")
      .values({ link_num: 1, at: 6_000, country: "NL", device: "desktop", os: "Linux", browser: "Firefox", referrer: "direct", is_bot: 0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(Number(inserted.id)).toBe(6);
    const newLink = (id: string, alias: string) =>
      k
        .insertInto("links")
        .values({
          id,
          domain: "",
          alias,
          url: "https://example.com/new",
          ios_url: null,
          android_url: null,
          expires_at: null,
          max_clicks: null,
          password_hash: null,
          owner_id: null,
          created_at: 400,
          updated_at: 400,
        })
        .returning("num")
        .executeTakeFirstOrThrow();
    expect(Number((await newLink("n-link", "new")).num)).toBe(4);
    await k.deleteFrom("links").where("id", "=", "n-link").execute();
    expect(Number((await newLink("o-link", "newer")).num)).toBe(5);

    // Constraints: unique id and (domain, alias). On SQLite clicks must name an existing link; on
    // PostgreSQL the click writer makes sure of it under lock (test/db/deleted-link-clicks.test.ts).
    await expect(newLink("a-link", "other")).rejects.toThrow();
    await expect(newLink("p-link", "ay")).rejects.toThrow();
    if (engine === "sqlite") {
      await expect(
        k
          .insertInto("clicks")
          .values({ link_num: 99, at: 1, country: "NL", device: "desktop", os: "Linux", browser: "Firefox", referrer: "direct", is_bot: 0 })
          .execute(),
      ).rejects.toThrow();
    }

    // Cascades: a deleted link takes its clicks and roll-ups; a deleted user their links, and those their clicks
    // (on PostgreSQL through the links delete trigger, also when the delete cascades from users).
    await k.deleteFrom("links").where("id", "=", "m-link").execute();
    expect(await k.selectFrom("clicks").select("id").where("link_num", "=", 3).execute()).toEqual([]);
    expect((await k.selectFrom("click_daily").select("link_id").execute()).map((d) => d.link_id)).toEqual(["z-link"]);
    await k.deleteFrom("users").where("id", "=", "u1").execute();
    expect((await k.selectFrom("links").select("id").execute()).map((l) => l.id)).toEqual(["o-link"]);
    expect(await k.selectFrom("clicks").select("id").execute()).toEqual([]);
    expect(await k.selectFrom("click_daily").select("link_id").execute()).toEqual([]);
    if (engine === "sqlite") {
      expect(storage.sqlite!.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(storage.sqlite!.pragma("foreign_key_check")).toEqual([]);
    }
  });
});
