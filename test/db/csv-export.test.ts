// The CSV export's click log on both engines, with a small page size: every click of the range once,
// in time order, across pages, ties and range bounds; on SQLite staged clicks (click_staging) too,
// also when a roll-up moves them into clicks between two pages; back-pressure and a reader that stops.
import type SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KyselyPlugin } from "kysely";
import { clickLog, exportCsv } from "../../src/clicks/csv.js";
import { resolvePeriod } from "../../src/clicks/period.js";
import { StatsService } from "../../src/clicks/stats.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { Storage } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { createTestDatabase, ENGINES, openTestStorage, type TestDatabase } from "../helpers/engines.js";

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 10, 10);
const range = resolvePeriod({ from: "2026-11-10", to: "2026-11-11" }, Date.UTC(2026, 10, 20), 0); // two whole days, both included
const CLICK_COLUMNS = "link_num, at, country, device, os, browser, referrer, is_bot, counted";

interface Seed {
  at: number;
  ref: string;
  staged?: boolean;
}

describe.each(ENGINES)("CSV click log on %s", (engine) => {
  let tdb: TestDatabase;
  let storage: Storage;
  let nextNum = 1;
  beforeAll(async () => {
    tdb = await createTestDatabase(engine);
    storage = await openTestStorage(tdb);
    await migrateToLatest(storage);
  });
  afterAll(async () => {
    await storage?.close();
    await tdb?.drop();
  });

  /** A new link with these clicks (staged ones only on SQLite, where click_staging exists); returns its number. */
  async function linkWith(clicks: Seed[]): Promise<{ id: string; num: number }> {
    const id = `csv_${nextNum}`;
    await storage.db
      .insertInto("links")
      .values({ id, domain: "", alias: id, url: "https://example.com/", click_count: 0, created_at: 0, updated_at: 0 } as never)
      .execute();
    const { num } = await storage.db.selectFrom("links").select("num").where("id", "=", id).executeTakeFirstOrThrow();
    nextNum++;
    const row = (c: Seed) => ({
      link_num: Number(num),
      at: c.at,
      country: "DE",
      device: "mobile",
      os: "iOS",
      browser: "Safari",
      referrer: c.ref,
      is_bot: c.ref.startsWith("bot") ? 1 : 0,
    });
    const stored = clicks.filter((c) => !(c.staged && engine === "sqlite"));
    const staged = clicks.filter((c) => c.staged && engine === "sqlite");
    if (stored.length) await storage.db.insertInto("clicks").values(stored.map(row)).execute();
    if (staged.length) await storage.db.insertInto("click_staging").values(staged.map(row)).execute();
    return { id, num: Number(num) };
  }

  async function log(num: number, pageSize: number): Promise<string[]> {
    const out: string[] = [];
    for await (const page of clickLog(storage.db, storage.dialect, num, range, pageSize)) {
      expect(page.length).toBeGreaterThan(0);
      for (const r of page) out.push(`${Number(r.at) - FROM}:${r.referrer}`);
    }
    return out;
  }

  // Times relative to the range start; "s" clicks are staged on SQLite (stored directly on PostgreSQL).
  const SEEDS: Seed[] = [
    { at: FROM - 1, ref: "before" },
    { at: FROM + 2 * DAY, ref: "after" }, // the day after `to`
    { at: FROM, ref: "first" }, // the range's first millisecond
    { at: FROM + 5, ref: "s5", staged: true },
    { at: FROM + 7, ref: "c7a" },
    { at: FROM + 7, ref: "s7", staged: true },
    { at: FROM + 7, ref: "c7b" },
    { at: FROM + 7, ref: "c7c" },
    { at: FROM + 9, ref: "s9a", staged: true },
    { at: FROM + 9, ref: "s9b", staged: true },
    { at: FROM + 10, ref: "c10" },
    { at: FROM + DAY, ref: "c-day2" },
    { at: FROM + DAY + 1, ref: "s-day2", staged: true },
    { at: FROM + 2 * DAY - 1, ref: "last" }, // the last millisecond of `to`
    { at: FROM + 2 * DAY - 1, ref: "s-last", staged: true },
  ];
  const IN_RANGE = SEEDS.filter((s) => s.ref !== "before" && s.ref !== "after");

  it("lists every click of the range once, in time order, whatever the page size", async () => {
    const { num } = await linkWith(SEEDS);
    const other = await linkWith([
      { at: FROM + 7, ref: "other-link" },
      { at: FROM + 8, ref: "other-staged", staged: true },
    ]);
    expect(other.num).not.toBe(num);
    const expected = IN_RANGE.map((s) => `${s.at - FROM}:${s.ref}`);
    for (const pageSize of [1, 2, 3, 4, 5, 100]) {
      const got = await log(num, pageSize);
      // Same multiset, times never going back.
      expect([...got].sort(), `page ${pageSize}`).toEqual([...expected].sort());
      const times = got.map((g) => Number(g.split(":")[0]));
      expect(times, `page ${pageSize}`).toEqual([...times].sort((a, b) => a - b));
    }
    // Within one millisecond: on SQLite clicks before staged ones, each in id order; on PostgreSQL (all in clicks) in id order.
    const at7 = engine === "sqlite" ? ["7:c7a", "7:c7b", "7:c7c", "7:s7"] : ["7:c7a", "7:s7", "7:c7b", "7:c7c"];
    expect(await log(num, 100)).toEqual([
      "0:first",
      "5:s5",
      ...at7,
      "9:s9a",
      "9:s9b",
      "10:c10",
      `${DAY}:c-day2`,
      `${DAY + 1}:s-day2`,
      `${2 * DAY - 1}:last`,
      `${2 * DAY - 1}:s-last`,
    ]);
    expect(await log(other.num, 1)).toEqual(["7:other-link", "8:other-staged"]);
  });

  it("the whole export: BOM, daily section, empty line, log header, rows; paging does not change a byte", async () => {
    const link = await linkWith([
      { at: FROM + 1000, ref: "=HYPERLINK(1)" },
      { at: FROM + 2000, ref: "+x", staged: true },
      { at: FROM + 3000, ref: "-y" },
      { at: FROM + DAY + 4000, ref: "@z", staged: true },
      { at: FROM + DAY + 5000, ref: "bot,crawler" },
    ]);
    const stats = new StatsService({ db: storage.db, clock: new ManualClock(Date.UTC(2026, 10, 20)) });
    const text = async (pageSize: number) => {
      let s = "";
      for await (const chunk of await exportCsv(storage, stats, link, range, pageSize)) s += String(chunk);
      return s;
    };
    const one = await text(1);
    expect(one).toBe(
      [
        "\uFEFFdate,clicks",
        "2026-11-10,0", // the daily section comes from the roll-ups, which these raw rows never went through
        "2026-11-11,0",
        "",
        "time,country,device,os,browser,referrer,bot,destination",
        "2026-11-10T00:00:01.000Z,DE,mobile,iOS,Safari,'=HYPERLINK(1),false,default",
        "2026-11-10T00:00:02.000Z,DE,mobile,iOS,Safari,'+x,false,default",
        "2026-11-10T00:00:03.000Z,DE,mobile,iOS,Safari,'-y,false,default",
        "2026-11-11T00:00:04.000Z,DE,mobile,iOS,Safari,'@z,false,default",
        '2026-11-11T00:00:05.000Z,DE,mobile,iOS,Safari,"bot,crawler",true,default',
        "",
      ].join("\r\n"),
    );
    expect(await text(2)).toBe(one);
    expect(await text(5000)).toBe(one);
  });

  it.runIf(engine === "sqlite")("a roll-up moving staged clicks into clicks between two pages: each click still listed once", async () => {
    const h = storage.sqlite as SQLite.Database;
    const move = h.transaction(() => {
      // What the roll-up does (sqlite-rollups.ts): copy into clicks (new ids), delete from staging.
      h.prepare(`INSERT INTO clicks (${CLICK_COLUMNS}) SELECT ${CLICK_COLUMNS} FROM click_staging`).run();
      h.prepare("DELETE FROM click_staging").run();
    });
    const expected = IN_RANGE.map((s) => `${s.at - FROM}:${s.ref}`).sort();
    for (const pageSize of [1, 2, 3]) {
      for (let moveAfter = 0; moveAfter <= IN_RANGE.length; moveAfter++) {
        const { num } = await linkWith(SEEDS);
        const got: string[] = [];
        let pages = 0;
        for await (const page of clickLog(storage.db, "sqlite", num, range, pageSize)) {
          if (pages++ === moveAfter) move(); // before the next page's statement
          for (const r of page) got.push(`${Number(r.at) - FROM}:${r.referrer}`);
        }
        expect([...got].sort(), `page ${pageSize}, moved after page ${moveAfter}`).toEqual(expected);
      }
    }
  });

  it("back-pressure: a reader that does not read stops the pages; one that goes away ends them", async () => {
    const clicks: Seed[] = Array.from({ length: 3000 }, (_, i) => ({ at: FROM + i, ref: `r${i}`, staged: i % 10 === 0 }));
    const link = await linkWith(clicks);
    let pages = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === "SelectQueryNode") pages++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const db = storage.db.withPlugin(counter);
    const stats = { daily: async () => ({ clicks: 0, bots: 0, series: [] }) };
    const stream = await exportCsv({ db, dialect: storage.dialect }, stats, link, range, 10);
    // 300 pages in all; nobody reads: only what fills the stream buffers is read. What is proved is
    // that reading stops, something not happening: a window is the test (without back-pressure the
    // 300 pages of SQLite rows are read in well under it).
    await new Promise((r) => setTimeout(r, 300));
    const unread = pages;
    expect(unread).toBeGreaterThan(0);
    expect(unread).toBeLessThan(60);
    // Read a little, then go away.
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    stream.destroy();
    // A page read in flight at the destroy may still finish (no event tells when the generator has
    // settled): a window, then a second one in which nothing more may be read.
    await new Promise((r) => setTimeout(r, 300));
    const atEnd = pages;
    await new Promise((r) => setTimeout(r, 300));
    expect(pages).toBe(atEnd);
    expect(atEnd).toBeLessThan(80);
  });
});
