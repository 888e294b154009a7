// SQLite inserts the clicks that share their values (and whether they were counted), whatever their
// links, with one statement binding those values once (each row an integer packing its link number and
// time offset), the others row by row. Whatever the mix, the rows stored must be exactly the batch's
// clicks: each value in its column, each time once, nothing merged across values, days, counted flags
// or links, also past what the packing holds (times 70 minutes apart, link numbers from 2^31).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { describeBatch } from "../../src/clicks/click-groups.js";
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
  const insert = handle.prepare(
    "INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at) VALUES (?, '', ?, 'https://example.com/', 0, 0, 0)",
  );
  for (const id of ["link_a", "link_b", "link_c", "link_d", ...MANY]) insert.run(id, id);
  handle
    .prepare(
      "INSERT INTO links (num, id, domain, alias, url, click_count, created_at, updated_at) VALUES (?, 'link_big', '', 'link_big', 'https://example.com/', 0, 0, 0)",
    )
    .run(BIG);
});
afterAll(async () => storage?.close());

/** 40 links of 60 alike clicks each: more rows than one transaction's worth, one statement per chunk. */
const MANY = Array.from({ length: 40 }, (_, k) => `link_m${k}`);
/** A link number past what a packed row holds (2^31). */
const BIG = 2 ** 31 + 5;
// Inserted in this order into a new database: link_a is number 1, link_d number 4, link_m0 number 5.
const NUMS: Record<string, number> = { link_a: 1, link_b: 2, link_c: 3, link_d: 4, link_big: BIG, ...Object.fromEntries(MANY.map((id, k) => [id, 5 + k])) };
const click = (linkId: string, at: number, userAgent: string, extra: Partial<ClickInput> = {}): ClickInput => ({
  linkId,
  linkNum: NUMS[linkId]!,
  at,
  userAgent,
  referer: "",
  ip: "",
  country: "NL",
  counted: false,
  destination: null,
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
    // link_b again, alike to its first click but 80 minutes later (past a packed offset), and counted
    click("link_b", t + 20 + 80 * 60_000, UA.windows),
    click("link_b", t + 21, UA.windows, { counted: true }),
    // link_big: alike to link_a's first five
    click("link_big", t + 30, UA.windows),
    click("link_big", t + 31, UA.windows),
    ...MANY.flatMap((id, k) => Array.from({ length: 60 }, (_, n) => click(id, t + 1_000 + k * 60 + n, n % 2 === 0 ? UA.windows : UA.iphone))),
  ];
  const batch = batchOf(inputs);
  const columns = "link_num, at, country, device, os, browser, referrer, is_bot, counted";
  const key = (r: Record<string, unknown>) =>
    columns
      .split(", ")
      .map((c) => String(r[c]))
      .join("|");
  const expected = describeBatch(batch, countries).rows.map(key).sort();
  // The oracle holds what it should: 2,541 clicks, with the values that tell them apart.
  expect(expected).toHaveLength(2_541);
  expect(new Set(expected.map((k) => k.split("|").slice(2).join("|"))).size).toBeGreaterThanOrEqual(6);

  const writer = new SqliteClickWriter(async (fn) => fn(), handle, countries);
  await writer.write(batch);
  const rowsOf = (table: string) => (handle.prepare(`SELECT ${columns} FROM ${table}`).all() as Record<string, unknown>[]).map(key);
  // Links with a few clicks are staged, the others in clicks already.
  const staged = rowsOf("click_staging");
  expect(staged.length).toBeGreaterThan(0);
  expect([...rowsOf("clicks"), ...staged].sort()).toEqual(expected);

  // The roll-up moves the staged rows: every click in clicks, once, with its values.
  await writer.flushRollups();
  expect(rowsOf("click_staging")).toEqual([]);
  expect(rowsOf("clicks").sort()).toEqual(expected);
  expect(Number(handle.prepare("SELECT count(DISTINCT id) FROM clicks").pluck().get())).toBe(2_541);
  // The roll-ups and counts agree with the rows (counted clicks were added when served).
  const counts = Object.fromEntries(
    (handle.prepare("SELECT id, click_count FROM links WHERE id NOT LIKE 'link_m%' ORDER BY id").all() as { id: string; click_count: number }[]).map((r) => [
      r.id,
      r.click_count,
    ]),
  );
  expect(counts).toEqual({ link_a: 10, link_b: 2, link_big: 2, link_c: 3, link_d: 121 });
  expect(Number(handle.prepare("SELECT sum(click_count) FROM links WHERE id LIKE 'link_m%'").pluck().get())).toBe(2_400);
  const days = handle.prepare("SELECT day, clicks FROM click_daily WHERE link_id = 'link_c' ORDER BY day").all();
  expect(days).toEqual([
    { day: "2026-11-21", clicks: 1 },
    { day: "2026-11-22", clicks: 2 },
  ]);
});
