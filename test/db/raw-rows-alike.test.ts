// SQLite inserts the clicks of a link that share their values (and whether they were counted) with one
// statement binding those values once, the others row by row. Whatever the mix, the rows stored must
// be exactly the batch's clicks: each value in its column, each time once, nothing merged across
// values, days, counted flags or links.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/click-writers.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { describeBatch } from "../../src/clicks/click-batch.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { UA } from "../helpers/visit.js";

let storage: Storage;
let handle: SQLite.Database;
const countries = new CountryResolver(null);
const MIDNIGHT = Date.UTC(2026, 10, 22);

beforeAll(async () => {
  storage = await openStorage({ kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "snip-alike-")), "snip.db") });
  await migrateToLatest(storage);
  handle = storage.sqlite as SQLite.Database;
  const insert = handle.prepare("INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at) VALUES (?, '', ?, 'https://example.com/', 0, 0, 0)");
  for (const id of ["link_a", "link_b", "link_c", "link_d"]) insert.run(id, id);
});
afterAll(async () => storage?.close());

// Inserted in this order into a new database: link_a is number 1, link_d number 4.
const NUMS: Record<string, number> = { link_a: 1, link_b: 2, link_c: 3, link_d: 4 };
const click = (linkId: string, at: number, userAgent: string, extra: Partial<ClickInput> = {}): ClickInput => ({
  linkId,
  linkNum: NUMS[linkId]!,
  at,
  userAgent,
  referer: "",
  ip: "",
  country: "NL",
  counted: false,
  ...extra,
});

it("stores every click of a mixed batch with its own values", async () => {
  const t = MIDNIGHT - 5_000;
  const inputs: ClickInput[] = [
    // link_a: five alike, interleaved with two from another browser, one from a third, two counted, one from another country
    ...[0, 2, 4, 6, 8].map((k) => click("link_a", t + k, UA.windows)),
    click("link_a", t + 1, UA.iphone),
    click("link_a", t + 3, UA.iphone),
    click("link_a", t + 5, UA.android),
    click("link_a", t + 7, UA.windows, { counted: true }),
    click("link_a", t + 9, UA.windows, { counted: true }),
    click("link_a", t + 10, UA.windows, { country: "DE" }),
    click("link_a", t + 11, UA.windows, { referer: "https://news.example/item" }),
    // link_b: one click
    click("link_b", t + 20, UA.windows),
    // link_c: three alike but across midnight (two days)
    click("link_c", MIDNIGHT - 1, UA.windows),
    click("link_c", MIDNIGHT, UA.windows),
    click("link_c", MIDNIGHT + 1, UA.windows),
    // link_d: 120 alike (more than one multi-row statement's worth) and one odd one
    ...Array.from({ length: 120 }, (_, k) => click("link_d", t + 100 + k, UA.iphone)),
    click("link_d", t + 300, UA.windows),
  ];
  const batch = batchOf(inputs);
  const columns = "link_num, at, country, device, os, browser, referrer, is_bot, counted";
  const key = (r: Record<string, unknown>) => columns.split(", ").map((c) => String(r[c])).join("|");
  const expected = describeBatch(batch, countries).rows.map(key).sort();
  // The oracle holds what it should: 137 clicks, with the values that tell them apart.
  expect(expected).toHaveLength(137);
  expect(new Set(expected.map((k) => k.split("|").slice(2).join("|"))).size).toBeGreaterThanOrEqual(6);

  const writer = new SqliteClickWriter(async (fn) => fn(), handle, countries);
  await writer.write(batch);
  const stored = (handle.prepare(`SELECT ${columns} FROM clicks`).all() as Record<string, unknown>[]).map(key).sort();
  expect(stored).toEqual(expected);
  expect(Number(handle.prepare("SELECT count(DISTINCT id) FROM clicks").pluck().get())).toBe(137);

  // The roll-ups and counts agree with the rows (counted clicks were added when served).
  await writer.flushRollups();
  const counts = Object.fromEntries((handle.prepare("SELECT id, click_count FROM links ORDER BY id").all() as { id: string; click_count: number }[]).map((r) => [r.id, r.click_count]));
  expect(counts).toEqual({ link_a: 10, link_b: 1, link_c: 3, link_d: 121 });
  const days = handle.prepare("SELECT day, clicks FROM click_daily WHERE link_id = 'link_c' ORDER BY day").all();
  expect(days).toEqual([
    { day: "2026-11-21", clicks: 1 },
    { day: "2026-11-22", clicks: 2 },
  ]);
});
