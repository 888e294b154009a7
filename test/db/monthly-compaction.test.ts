// SQLite writes a month's monthly breakdown rows by compacting its daily rows once the month is over
// (sqlite-rollups.ts). Statistics must be the same before, during and after, a compaction cut short
// must resume where it stopped, and clicks of a month that arrive late (during or after its
// compaction) must be counted exactly once in both roll-ups. The owners' monthly rows (migration 062)
// stay the sums of their links' at every step, a deleted link's rows taken out.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type SQLite from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { StatsService } from "../../src/clicks/stats.js";
import { ownerRows } from "../../src/clicks/series.js";
import { ManualClock } from "../../src/shared/clock.js";
import { openStorage, type Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";

const LINKS = 1_200; // three compaction transactions of 500 links
const OCT = Date.UTC(2026, 9, 10, 12);
const NOV = Date.UTC(2026, 10, 2, 12);
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
let storage: Storage;
let handle: SQLite.Database;
const countries = new CountryResolver(null);

const id = (i: number) => `link_${String(i).padStart(5, "0")}`;
// The links are inserted in order into a new database: link i is number i + 1.
const click = (i: number, at: number, country: string): ClickInput => ({
  linkId: id(i),
  linkNum: i + 1,
  at,
  userAgent: UA,
  referer: "",
  ip: "",
  country,
  counted: false,
  destination: null,
});
const plain = () => new SqliteClickWriter(async (fn) => fn(), handle, countries);
const state = () => handle.prepare("SELECT months_through, compact_to, compact_link FROM click_rollup_state").get();
const monthlyRows = (month: string) => Number(handle.prepare("SELECT count(*) FROM click_breakdown_month WHERE month = ?").pluck().get(month));
/** Rows where the monthly roll-up and the sum of the daily one disagree, for a month (either side missing counts). */
const mismatches = (month: string) =>
  handle
    .prepare(
      `WITH d AS (SELECT link_id, dimension, value, sum(clicks) AS clicks, sum(visitors) AS visitors FROM click_breakdown WHERE substr(day, 1, 7) = :m GROUP BY 1, 2, 3),
            m AS (SELECT link_id, dimension, value, clicks, visitors FROM click_breakdown_month WHERE month = :m)
       SELECT count(*) FROM (SELECT * FROM d EXCEPT SELECT * FROM m UNION ALL SELECT * FROM m EXCEPT SELECT * FROM d)`,
    )
    .pluck()
    .get({ m: month });

/** Owner monthly rows that differ from the sum of their links' monthly rows (any month; links without an owner left out). */
const ownerMismatches = () =>
  handle
    .prepare(
      `WITH l AS (SELECT links.owner_id, m.month, m.dimension, m.value, sum(m.clicks) AS clicks, sum(m.visitors) AS visitors
                  FROM click_breakdown_month m JOIN links ON links.id = m.link_id WHERE links.owner_id IS NOT NULL GROUP BY 1, 2, 3, 4),
            o AS (SELECT owner_id, month, dimension, value, clicks, visitors FROM owner_breakdown_month WHERE clicks <> 0 OR visitors <> 0)
       SELECT count(*) FROM (SELECT * FROM l EXCEPT SELECT * FROM o UNION ALL SELECT * FROM o EXCEPT SELECT * FROM l)`,
    )
    .pluck()
    .get();
const ownerMonthClicks = (owner: string, month: string) =>
  Number(
    handle
      .prepare("SELECT coalesce(sum(clicks), 0) FROM owner_breakdown_month WHERE owner_id = ? AND month = ? AND dimension = 'country'")
      .pluck()
      .get(owner, month),
  );

async function octoberCountries(linkIndex: number) {
  const stats = new StatsService({ db: storage.db, clock: new ManualClock(NOV) });
  const link = await storage.db.selectFrom("links").selectAll().where("id", "=", id(linkIndex)).executeTakeFirstOrThrow();
  const s = await stats.forLink(link, "pro", { from: "2026-10-01", to: "2026-10-31" });
  if (!s.advanced) throw new Error("advanced statistics expected");
  return s.countries;
}

beforeAll(async () => {
  storage = await openStorage({ kind: "sqlite", file: join(mkdtempSync(join(tmpdir(), "snip-compact-")), "snip.db") });
  await migrateToLatest(storage);
  handle = storage.sqlite as SQLite.Database;
  handle
    .prepare(
      "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u0', 'u0@example.com', 'x', 0, 0), ('u1', 'u1@example.com', 'x', 0, 0)",
    )
    .run();
  const insert = handle.prepare(
    "INSERT INTO links (id, domain, alias, url, owner_id, click_count, created_at, updated_at) VALUES (?, '', ?, 'https://example.com/', ?, 0, 0, 0)",
  );
  // Owners u0 and u1 by turns; every third link has none.
  for (let i = 0; i < LINKS; i++) insert.run(id(i), `a${i}`, i % 3 === 2 ? null : `u${i % 3}`);
  // Whatever today is: September is the last month the monthly roll-up holds.
  handle.prepare("UPDATE click_rollup_state SET months_through = '2026-09'").run();
});
afterAll(async () => storage?.close());

it("compacts October once November's clicks arrive, resumes after a crash, and counts late clicks once", async () => {
  // October: link i gets i % 3 + 1 clicks from NL, one from DE; link 7 also 4 from BR.
  const october: ClickInput[] = [];
  for (let i = 0; i < LINKS; i++) {
    for (let k = 0; k <= i % 3; k++) october.push(click(i, OCT + i * 10 + k, "NL"));
    october.push(click(i, OCT + i * 10 + 5, "DE"));
  }
  for (let k = 0; k < 4; k++) october.push(click(7, OCT + 100_000 + k, "BR"));
  const first = plain();
  await first.write(batchOf(october));
  await first.flushRollups();
  // Only October so far: nothing compacted, statistics read October from the daily rows.
  expect(monthlyRows("2026-10")).toBe(0);
  expect(state()).toEqual({ months_through: "2026-09", compact_to: null, compact_link: null });
  // One visitor per link (one address and agent): its first October click (NL) is its visit.
  const expected7 = [
    { country: "BR", clicks: 4, visitors: 0 },
    { country: "NL", clicks: 2, visitors: 1 },
    { country: "DE", clicks: 1, visitors: 0 },
  ];
  expect(await octoberCountries(7)).toEqual(expected7);

  // November's first clicks start the compaction of October; the writer dies in its second transaction.
  let calls = 0;
  const crashing = new SqliteClickWriter(
    async <T>(fn: () => T): Promise<T> => {
      if (++calls === 7) throw new Error("simulated crash");
      return fn();
    },
    handle,
    countries,
  );
  await crashing.write(batchOf([click(1, NOV, "NL"), click(2, NOV + 1, "NL")])); // call 1: November's visitor salt, 2: raw rows
  // 3 and 4: the staged rows moved into clicks; 5: roll-up; 6: links 0-499; 7 dies
  await expect(crashing.flushRollups()).rejects.toThrow("simulated crash");
  expect(state()).toEqual({ months_through: "2026-09", compact_to: "2026-10", compact_link: id(499) });
  expect(Number(handle.prepare("SELECT count(DISTINCT link_id) FROM click_breakdown_month WHERE month = '2026-10'").pluck().get())).toBe(500);
  // The owners' October rows hold the links compacted so far, and only those.
  expect(ownerMismatches()).toBe(0);
  expect(ownerMonthClicks("u0", "2026-10")).toBeGreaterThan(0);
  // Mid-compaction, statistics still read October from the daily rows.
  expect(await octoberCountries(7)).toEqual(expected7);
  expect(await octoberCountries(900)).toEqual([
    { country: "DE", clicks: 1, visitors: 0 },
    { country: "NL", clicks: 1, visitors: 1 },
  ]);

  // Late October clicks, rolled up by the next writer before it resumes: link 7 is already
  // compacted (its monthly rows are updated too), link 900 is not (the compaction will add it).
  const next = plain();
  await next.write(batchOf([click(7, OCT + 200_000, "DE"), click(900, OCT + 200_001, "BR"), click(900, OCT + 200_002, "BR")]));
  await next.flushRollups();
  expect(state()).toEqual({ months_through: "2026-10", compact_to: null, compact_link: null });
  expect(mismatches("2026-10")).toBe(0);
  expect(ownerMismatches()).toBe(0);
  expect(monthlyRows("2026-11")).toBe(0);
  // October's salt and keys went once November came (the day before yesterday): a late October click's
  // visitor gets a key of a new salt, and is counted again.
  const after7 = [
    { country: "BR", clicks: 4, visitors: 0 },
    { country: "DE", clicks: 2, visitors: 1 },
    { country: "NL", clicks: 2, visitors: 1 },
  ];
  expect(await octoberCountries(7)).toEqual(after7);
  expect(await octoberCountries(900)).toEqual([
    { country: "BR", clicks: 2, visitors: 1 },
    { country: "DE", clicks: 1, visitors: 0 },
    { country: "NL", clicks: 1, visitors: 1 },
  ]);

  // After the compaction: a late October click goes to both roll-ups; November stays daily-only.
  await next.write(batchOf([click(900, OCT + 300_000, "NL"), click(3, NOV + 10, "DE")]));
  await next.flushRollups();
  expect(mismatches("2026-10")).toBe(0);
  expect(monthlyRows("2026-11")).toBe(0);
  expect(await octoberCountries(900)).toEqual([
    { country: "BR", clicks: 2, visitors: 1 },
    { country: "NL", clicks: 2, visitors: 1 },
    { country: "DE", clicks: 1, visitors: 0 },
  ]);
  // Every October click is in the monthly rows exactly once (5 dimensions each).
  const octoberClicks = october.length + 3 + 1;
  expect(Number(handle.prepare("SELECT sum(clicks) FROM click_breakdown_month WHERE month = '2026-10'").pluck().get())).toBe(octoberClicks * 5);
  expect(ownerMismatches()).toBe(0);
  // u0's links are 0, 3, 6, ...: i % 3 + 1 = 1 click from NL and one from DE each, plus the three late clicks of link 900 (a u0 link).
  expect(ownerMonthClicks("u0", "2026-10")).toBe(Math.ceil(LINKS / 3) * 2 + 3);
  // u1's: 2 from NL, one from DE each, plus link 7's 4 from BR and its late click.
  expect(ownerMonthClicks("u1", "2026-10")).toBe(Math.ceil((LINKS - 1) / 3) * 3 + 4 + 1);

  // A deleted link's clicks leave its owner's monthly rows; its owner's statistics read them (account analytics).
  handle.prepare("DELETE FROM links WHERE id = ?").run(id(7));
  expect(ownerMismatches()).toBe(0);
  expect(ownerMonthClicks("u1", "2026-10")).toBe(Math.ceil((LINKS - 1) / 3) * 3 - 3);
  const stats = new StatsService({ db: storage.db, clock: new ManualClock(NOV) });
  const octoberDays = { from: "2026-10-01", to: "2026-10-31", days: 31, startMs: Date.UTC(2026, 9, 1), endMs: Date.UTC(2026, 10, 1) };
  const tops = await stats.tops(storage.db, ownerRows("u1"), octoberDays, []);
  expect(tops.by.country).toEqual([
    { value: "NL", clicks: (Math.ceil((LINKS - 1) / 3) - 1) * 2, visitors: Math.ceil((LINKS - 1) / 3) - 1 },
    { value: "DE", clicks: Math.ceil((LINKS - 1) / 3) - 1, visitors: 0 },
  ]);
});
