// A SQLite roll-up is written in several short transactions. A crash between two of them (simulated
// by a lock that throws, the writer's memory then thrown away) must leave nothing out and count
// nothing twice once the next writer recovers, including clicks written while the roll-up ran and
// clicks already counted when they were served (click-limited links).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";

const LINKS = 1_200; // more than two roll-up transactions' worth of groups
const DAY = Date.UTC(2026, 10, 20, 9);
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
let storage: Storage;
let handle: SQLite.Database;

const id = (i: number) => `link_${String(i).padStart(5, "0")}`;
// The links are inserted in order into a new database: link i is number i + 1.
const click = (i: number, at: number, counted = false): ClickInput => ({
  linkId: id(i),
  linkNum: i + 1,
  at,
  userAgent: UA,
  referer: "https://news.example/x",
  ip: "",
  country: "NL",
  counted,
  destination: null,
});

beforeAll(async () => {
  storage = await openStorage({ kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "snip-epoch-")), "snip.db") });
  await migrateToLatest(storage);
  handle = storage.sqlite as SQLite.Database;
  const insert = handle.prepare(
    "INSERT INTO links (id, domain, alias, url, click_count, created_at, updated_at, max_clicks) VALUES (?, '', ?, 'https://example.com/', ?, 0, 0, ?)",
  );
  // Link 0 is click-limited: its clicks were counted as they were served (3 of them, below).
  for (let i = 0; i < LINKS; i++) insert.run(id(i), `a${i}`, i === 0 ? 3 : 0, i === 0 ? 100 : null);
  // November's monthly rows kept up to date by roll-ups (a compacted month), so they are checked too.
  handle.prepare("UPDATE click_rollup_state SET months_through = '2026-11'").run();
});
afterAll(async () => storage?.close());

function expected(): Map<string, number> {
  const m = new Map<string, number>();
  // First batch: every link once, link 7 five times, link 0 three times (counted).
  for (let i = 0; i < LINKS; i++) m.set(id(i), i === 7 ? 5 : i === 0 ? 3 : 1);
  // Written while the roll-up ran: links 1 (already rolled up) and 1,100 (not yet), twice each.
  m.set(id(1), (m.get(id(1)) ?? 0) + 2);
  m.set(id(1100), (m.get(id(1100)) ?? 0) + 2);
  return m;
}

it("finishes a roll-up cut short between its transactions, exactly once", async () => {
  const countries = new CountryResolver(null);
  const first: ClickInput[] = [];
  for (let i = 0; i < LINKS; i++) {
    const n = i === 7 ? 5 : i === 0 ? 3 : 1;
    for (let k = 0; k < n; k++) first.push(click(i, DAY + i * 10 + k, i === 0));
  }
  let calls = 0;
  let crashed = false;
  const crashing = new SqliteClickWriter(
    async <T>(fn: () => T): Promise<T> => {
      calls++;
      // Calls: 1 the day's visitor salt (once a day); 2 the raw rows; 3 and 4 the move of the staged rows
      // into clicks (the second with the roll-up's snapshot); 5 the roll-up's first transaction; 6 its second, which dies.
      if (calls === 6) {
        // Between the first and second roll-up transaction: the worker wrote another batch, then died.
        await later.write(batchOf([click(1, DAY + 50_000), click(1, DAY + 50_001), click(1100, DAY + 50_002), click(1100, DAY + 50_003)]));
        crashed = true;
        throw new Error("simulated crash");
      }
      return fn();
    },
    handle,
    countries,
  );
  // Writes raw rows only (the other writer's memory is lost with the crash; its rows are on disk).
  const later = new SqliteClickWriter(async (fn) => fn(), handle, countries);

  await crashing.write(batchOf(first)); // calls 1 and 2: salt, raw rows
  await expect(crashing.flushRollups()).rejects.toThrow("simulated crash"); // calls 3 to 6
  expect(crashed).toBe(true);

  const state = handle.prepare("SELECT last_click_id, epoch_to, epoch_link FROM click_rollup_state").get() as {
    last_click_id: number;
    epoch_to: number;
    epoch_link: string;
  };
  expect(state.last_click_id).toBe(0);
  expect(state.epoch_to).toBe(first.length);
  expect(state.epoch_link).toBe(id(249)); // the first transaction: 250 links
  const rolled = handle.prepare("SELECT count(*) FROM click_daily").pluck().get();
  expect(rolled).toBe(250);

  const recovering = new SqliteClickWriter(async (fn) => fn(), handle, countries);
  await recovering.recover();
  const check = () => {
    const daily = new Map(
      (handle.prepare("SELECT link_id, clicks FROM click_daily").all() as { link_id: string; clicks: number }[]).map((r) => [r.link_id, r.clicks]),
    );
    const counts = new Map(
      (handle.prepare("SELECT id, click_count FROM links").all() as { id: string; click_count: number }[]).map((r) => [r.id, r.click_count]),
    );
    const want = expected();
    expect(daily).toEqual(want);
    expect(counts).toEqual(want);
    const countries = handle.prepare("SELECT sum(clicks) FROM click_breakdown_month WHERE dimension = 'country' AND value = 'NL'").pluck().get();
    expect(countries).toBe([...want.values()].reduce((a, b) => a + b, 0));
    const s = handle.prepare("SELECT last_click_id, epoch_to, epoch_link FROM click_rollup_state").get();
    expect(s).toEqual({ last_click_id: first.length + 4, epoch_to: null, epoch_link: null });
  };
  check();
  // A second start finds nothing to add.
  await new SqliteClickWriter(async (fn) => fn(), handle, countries).recover();
  check();
});
