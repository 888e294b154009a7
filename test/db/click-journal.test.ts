// The click journal under DATA_DIR: what a killed process left is replayed at the next start from where
// its writer stopped (a committed segment is skipped, a SQLite batch cut between chunks resumes after
// the last committed one, a torn end is ignored, clicks of deleted links are dropped), a live process's
// journal is left alone, files are 0600 in 0700 directories, and a clean shutdown leaves nothing.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { type ClickBatch, ClickBatchBuilder } from "../../src/clicks/click-buffer.js";
import { ClickJournal } from "../../src/clicks/click-journal.js";
import type { ClickWriter } from "../../src/clicks/click-writer.js";
import { PostgresClickWriter } from "../../src/clicks/pg-writer.js";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import type { ClickInput } from "../../src/clicks/recorder.js";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { UA, visit } from "../helpers/visit.js";

const log = pino({ level: "silent" });
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
});

async function start(opts: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer({ ...opts, env: { CLICK_ROLLUP_MS: "600000", ...opts?.env } });
  servers.push(s);
  return s;
}

const mode = (path: string) => statSync(path).mode & 0o777;
const journalRoot = (s: TestServer) => join(s.dataDir, "click-journal");
const journals = (s: TestServer) => (existsSync(journalRoot(s)) ? readdirSync(journalRoot(s)) : []);

/** Pretends the journal's process is gone: a pid that no longer runs. */
function orphan(root: string, j: ClickJournal): void {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  writeFileSync(join(root, j.id, "owner"), JSON.stringify({ host: hostname(), pid, started: null }));
}

/** Journals `inputs` as the recorder does (two appends, on two event-loop turns) and seals the batch. */
async function journaled(j: ClickJournal, inputs: ClickInput[]): Promise<ClickBatch> {
  const b = new ClickBatchBuilder();
  const half = inputs.length >> 1;
  for (const [i, c] of inputs.entries()) {
    b.push(c);
    j.pending(b);
    if (i === half) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setImmediate(r));
  const { mark } = j.seal(b);
  return { ...b.seal(), journal: mark };
}

function writerOf(s: TestServer): ClickWriter {
  const countries = new CountryResolver(null);
  const handle = s.ctx.storage.sqlite;
  if (handle === null) return new PostgresClickWriter(s.ctx.storage.db, countries);
  return new SqliteClickWriter((fn) => s.ctx.storage.db.connection().execute(async () => fn()), handle, countries);
}

async function counts(s: TestServer, ids: string[]): Promise<{ raw: number[]; counted: number[] }> {
  await s.ctx.clicks.flush();
  const db = s.ctx.storage.db;
  const raw: number[] = [];
  const counted: number[] = [];
  for (const id of ids) {
    const link = await db.selectFrom("links").select(["num", "click_count"]).where("id", "=", id).executeTakeFirstOrThrow();
    const n = await db
      .selectFrom("clicks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("link_num", "=", link.num)
      .executeTakeFirstOrThrow();
    raw.push(Number(n.n));
    counted.push(Number(link.click_count));
  }
  return { raw, counted };
}

const click = (link: { id: string; num: number }, i: number, ua: string = UA.windows): ClickInput => ({
  linkId: link.id,
  linkNum: link.num,
  at: Date.UTC(2026, 10, 22, 12) + i,
  userAgent: ua,
  referer: i % 2 ? "https://news.example/a" : "",
  ip: "",
  country: i % 3 ? "NL" : null,
  counted: false,
  destination: null,
});

describe.each(ENGINES)("click journal (%s)", (engine) => {
  it("keeps buffered clicks 0600 in 0700 directories and leaves nothing after a clean shutdown", async () => {
    const first = await start({ engine, env: { CLICK_FLUSH_MS: "60000" } });
    const user = await first.ctx.accounts.create({ email: `perm-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await first.ctx.links.create(user, { url: "https://example.com/perm", alias: "perm-link" });
    for (let i = 0; i < 3; i++) expect(await visit(first.url, "/perm-link", { "user-agent": UA.iphone })).toBe(302);
    const [id] = journals(first);
    const dir = join(journalRoot(first), id!);
    expect(mode(journalRoot(first))).toBe(0o700);
    expect(mode(dir)).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual(["1.clk", "owner"]);
    expect(mode(join(dir, "1.clk"))).toBe(0o600);
    expect(mode(join(dir, "owner"))).toBe(0o600);
    // 3 appends of one click each (a string list with the first only): header, floats.
    expect(statSync(join(dir, "1.clk")).size).toBeGreaterThan(3 * (12 + 7 * 8));

    await first.stop();
    expect(journals(first)).toEqual([]);
    const again = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(await again.ctx.storage.db.selectFrom("click_journal").selectAll().execute()).toEqual([]);
    expect(await counts(again, [link.id])).toEqual({ raw: [3], counted: [3] });
  });

  it("replays a killed process's journal once, from where its writer stopped", async () => {
    const first = await start({ engine });
    const user = await first.ctx.accounts.create({ email: `replay-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const [a, b, gone] = [
      await first.ctx.links.create(user, { url: "https://example.com/a" }),
      await first.ctx.links.create(user, { url: "https://example.com/b" }),
      await first.ctx.links.create(user, { url: "https://example.com/gone" }),
    ] as const;
    const root = journalRoot(first);
    const dead = new ClickJournal(root, log);
    const seg1 = await journaled(
      dead,
      Array.from({ length: 5 }, (_, i) => click(a, i)),
    );
    const seg2 = await journaled(dead, [
      ...Array.from({ length: 7 }, (_, i) => click(a, 10 + i, UA.android)),
      ...Array.from({ length: 4 }, (_, i) => click(b, i)),
      click(gone, 0),
      click(gone, 1),
    ]);
    const seg3 = await journaled(
      dead,
      Array.from({ length: 3 }, (_, i) => click(b, 20 + i, UA.googlebot)),
    );
    expect([seg1.journal, seg2.journal, seg3.journal]).toEqual([1, 2, 3].map((segment) => ({ journal: dead.id, segment })));
    // Segment 1 was committed, and the process died before deleting its file.
    await writerOf(first).write(seg1);
    // Segment 3's last append was torn by the kill.
    appendFileSync(join(root, dead.id, "3.clk"), Buffer.from([0x43, 0x4c, 0x4b, 0x31, 9, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]));
    orphan(root, dead);
    await first.ctx.links.delete(user, gone.id);
    await first.stop();

    const second = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(await counts(second, [a.id, b.id])).toEqual({ raw: [12, 7], counted: [12, 7] });
    expect(existsSync(join(root, dead.id))).toBe(false);
    expect(await second.ctx.storage.db.selectFrom("click_journal").selectAll().where("journal", "=", dead.id).execute()).toEqual([]);
    // Every value as the writer stores it: the replayed rows are the clicks as recorded.
    const bots = await second.ctx.storage.db.selectFrom("click_daily").select(["clicks", "bots"]).where("link_id", "=", b.id).executeTakeFirstOrThrow();
    expect([Number(bots.clicks), Number(bots.bots)]).toEqual([7, 3]);
    const refs = await second.ctx.storage.db
      .selectFrom("click_breakdown")
      .select(["value", "clicks"])
      .where("link_id", "=", a.id)
      .where("dimension", "in", ["referrer", "device"])
      .orderBy("dimension")
      .orderBy("value")
      .execute();
    expect(refs.map((r) => [r.value, Number(r.clicks)])).toEqual([
      ["desktop", 5],
      ["mobile", 7],
      ["direct", 7],
      ["news.example", 5],
    ]);
    await second.stop();

    const third = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(await counts(third, [a.id, b.id])).toEqual({ raw: [12, 7], counted: [12, 7] });
  });

  it("replays segments of the formats before destinations (CLK1, 7 numbers a click) and before UTM values (CLK2, 8), and keeps a new one's destinations and UTM values", async () => {
    const first = await start({ engine });
    const user = await first.ctx.accounts.create({ email: `format-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await first.ctx.links.create(user, { url: "https://example.com/format" });
    const num = Number((await first.ctx.storage.db.selectFrom("links").select("num").where("id", "=", link.id).executeTakeFirstOrThrow()).num);
    const root = journalRoot(first);
    const dead = new ClickJournal(root, log);
    // Segment 1 in today's format, with destinations.
    const two = await (async () => {
      const b = new ClickBatchBuilder();
      for (const [i, d] of [null, "rule:2", "variant:1", "rule:2"].entries()) {
        b.push({ ...click(link, 10 + i), destination: d, utm: d === "rule:2" ? "utm_source=news&utm_campaign=spring" : null });
        dead.pending(b);
      }
      await new Promise((r) => setImmediate(r));
      return dead.seal(b);
    })();
    expect(two).toEqual({ mark: { journal: dead.id, segment: 1 }, whole: true });
    // Segment 2 as the previous version wrote it: two appends, MAGIC "CLK1", 7 float64 per click
    // (at, user agent, referrer, address, country header or -1, counted, link number).
    const at = Date.UTC(2026, 10, 22, 12);
    const append = (clicks: number[][], strings: string[], magic = 0x314b4c43, width = 7) => {
      const text = Buffer.from(strings.length === 0 ? "" : JSON.stringify(strings));
      const head = Buffer.alloc(12);
      head.writeUInt32LE(magic, 0);
      head.writeUInt32LE(clicks.length, 4);
      head.writeUInt32LE(text.length, 8);
      const f = new Float64Array(clicks.flat());
      expect(f.length).toBe(clicks.length * width);
      return Buffer.concat([head, text, Buffer.from(f.buffer)]);
    };
    writeFileSync(
      join(root, dead.id, "2.clk"),
      Buffer.concat([
        append(
          [
            [at, 0, 1, 2, -1, 0, num],
            [at + 1, 0, 1, 2, 3, 0, num],
          ],
          [UA.iphone, "", "", "NL"],
        ),
        append([[at + 2, 4, 1, 2, 3, 0, num]], [UA.windows]),
      ]),
    );
    // Segment 3 as the release before QR flags and UTM values wrote it: "CLK2", 8 numbers (the destination last).
    writeFileSync(join(root, dead.id, "3.clk"), append([[at + 3, 0, 1, 2, -1, 0, num, 3]], [UA.iphone, "", "", "rule:2"], 0x324b4c43, 8));
    orphan(root, dead);
    await first.stop();

    const second = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(await counts(second, [link.id])).toEqual({ raw: [8], counted: [8] });
    const rows = await second.ctx.storage.db
      .selectFrom("clicks")
      .select(["at", "country", "device", "destination", "qr", "utm"])
      .where("link_num", "=", num)
      .orderBy("at")
      .execute();
    expect(rows.slice(0, 4).map((r) => [Number(r.at) - at, r.country, r.device, r.destination, r.qr, r.utm])).toEqual([
      [0, "unknown", "mobile", null, 0, null],
      [1, "NL", "mobile", null, 0, null],
      [2, "NL", "desktop", null, 0, null],
      [3, "unknown", "mobile", "rule:2", 0, null],
    ]);
    expect(rows.slice(4).map((r) => `${r.destination} ${r.utm}`)).toEqual([
      "null null",
      "rule:2 utm_source=news&utm_campaign=spring",
      "variant:1 null",
      "rule:2 utm_source=news&utm_campaign=spring",
    ]);
    const dest = await second.ctx.storage.db
      .selectFrom("click_breakdown")
      .select(["value", "clicks"])
      .where("link_id", "=", link.id)
      .where("dimension", "=", "destination")
      .orderBy("value")
      .execute();
    expect(dest.map((r) => [r.value, Number(r.clicks)])).toEqual([
      ["rule:2", 3],
      ["variant:1", 1],
    ]);
    const utm = await second.ctx.storage.db
      .selectFrom("click_breakdown")
      .select(["dimension", "value", "clicks"])
      .where("link_id", "=", link.id)
      .where("dimension", "like", "utm_%")
      .orderBy("dimension")
      .execute();
    expect(utm.map((r) => [r.dimension, r.value, Number(r.clicks)])).toEqual([
      ["utm_campaign", "spring", 2],
      ["utm_source", "news", 2],
    ]);
  });

  it("finishes a replay that a crash cut short (the journal claimed by a process that died too)", async () => {
    const first = await start({ engine });
    const user = await first.ctx.accounts.create({ email: `claim-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await first.ctx.links.create(user, { url: "https://example.com/claim" });
    const root = journalRoot(first);
    const killed = new ClickJournal(root, log);
    const seg1 = await journaled(
      killed,
      Array.from({ length: 6 }, (_, i) => click(link, i)),
    );
    await journaled(
      killed,
      Array.from({ length: 9 }, (_, i) => click(link, 100 + i)),
    );
    // The next start claimed it (moved it into its own journal), replayed segment 1 and died as well.
    const replaying = new ClickJournal(root, log);
    renameSync(join(root, killed.id), join(root, replaying.id, killed.id));
    await writerOf(first).write(seg1);
    orphan(join(root, replaying.id), killed);
    orphan(root, replaying);
    await first.stop();

    const second = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(await counts(second, [link.id])).toEqual({ raw: [15], counted: [15] });
    // Only the new server's own journal is left, and nothing inside it but its owner file.
    const [own] = journals(second);
    expect(journals(second)).toHaveLength(1);
    expect(readdirSync(join(root, own!))).toEqual(["owner"]);
    expect(await second.ctx.storage.db.selectFrom("click_journal").select("journal").execute()).toEqual([]);
  });

  it("leaves alone the journal of a process that still runs", async () => {
    const first = await start({ engine, env: { CLICK_FLUSH_MS: "60000" } });
    const user = await first.ctx.accounts.create({ email: `live-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await first.ctx.links.create(user, { url: "https://example.com/live", alias: "live-link" });
    for (let i = 0; i < 4; i++) expect(await visit(first.url, "/live-link")).toBe(302);
    const [live] = journals(first);
    // A second server on the same DATA_DIR (in this very process: same pid, same start time).
    const second = await start({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
    expect(journals(first)).toContain(live);
    expect(await counts(second, [link.id])).toEqual({ raw: [0], counted: [0] });
    await first.stop();
    expect(await counts(second, [link.id])).toEqual({ raw: [4], counted: [4] });
  });
});

it("resumes a SQLite batch cut between its chunks after the last chunk committed", async () => {
  const first = await start({ engine: "sqlite" });
  const user = await first.ctx.accounts.create({ email: "chunks@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const links: { id: string; num: number }[] = [];
  for (let i = 0; i < 3; i++) links.push(await first.ctx.links.create(user, { url: `https://example.com/${i}` }));
  const root = journalRoot(first);
  const dead = new ClickJournal(root, log);
  // 2,500 clicks per link: three chunks of one link each (RAW_CHUNK is 2,000 rows of whole links).
  const batch = await journaled(
    dead,
    Array.from({ length: 7_500 }, (_, i) => click(links[i % 3]!, i)),
  );
  const handle = first.ctx.storage.sqlite!;
  handle.exec(`CREATE TEMP TRIGGER fail_last BEFORE INSERT ON clicks WHEN NEW.link_num = ${links[2]!.num} BEGIN SELECT RAISE(ABORT, 'killed'); END`);
  await expect(writerOf(first).write(batch)).rejects.toThrow("killed");
  handle.exec("DROP TRIGGER fail_last");
  expect(await first.ctx.storage.db.selectFrom("click_journal").selectAll().where("journal", "=", dead.id).execute()).toEqual([
    { journal: dead.id, segment: 1, through_num: links[1]!.num },
  ]);
  orphan(root, dead);
  await first.stop();

  const second = await start({ engine: "sqlite", dataDir: first.dataDir });
  expect(
    await counts(
      second,
      links.map((l) => l.id),
    ),
  ).toEqual({ raw: [2_500, 2_500, 2_500], counted: [2_500, 2_500, 2_500] });
});

it("does not journal with CLICK_JOURNAL=off", async () => {
  const s = await start({ env: { CLICK_JOURNAL: "off", CLICK_FLUSH_MS: "60000" } });
  const user = await s.ctx.accounts.create({ email: "off@example.com", password: "correct horse 1", plan: "pro", verified: true });
  await s.ctx.links.create(user, { url: "https://example.com/off", alias: "off-link" });
  expect(await visit(s.url, "/off-link")).toBe(302);
  expect(journals(s)).toEqual([]);
});
