// SQLite writes a batch's raw clicks in transactions of whole links (a click-limit count waits for one
// at most); a batch retried after one of them failed resumes after the last committed, so every click
// is stored and counted once.
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteClickWriter } from "../../src/clicks/sqlite-writer.js";
import { batchOf } from "../../src/clicks/click-buffer.js";
import { CountryResolver } from "../../src/clicks/describe.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { UA } from "../helpers/visit.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ engine: "sqlite", env: { CLICK_ROLLUP_MS: "600000" } });
});
afterAll(async () => server?.close());

it("resumes a failed batch after its committed chunks", async () => {
  const user = await server.ctx.accounts.create({ email: "chunks@example.com", password: "correct horse 1", plan: "pro", verified: true });
  const links: { id: string; num: number }[] = [];
  for (let i = 0; i < 3; i++) links.push(await server.ctx.links.create(user, { url: `https://example.com/${i}` }));
  const ids = links.map((l) => l.id);
  const handle = server.ctx.storage.sqlite!;
  const writer = new SqliteClickWriter(async (fn) => fn(), handle, new CountryResolver(null));
  const at = Date.UTC(2026, 10, 22, 12);
  // 2,500 clicks per link, interleaved: three chunks of one link each.
  const batch = batchOf(
    Array.from({ length: 7_500 }, (_, i) => ({
      linkId: ids[i % 3]!,
      linkNum: links[i % 3]!.num,
      at: at + i,
      userAgent: UA.windows,
      referer: "",
      ip: "",
      country: null,
      counted: false,
      destination: null,
    })),
  );
  // Stored: in clicks, or staged until the next roll-up moves it there (a link's single click).
  const stored = (id: string) =>
    Number(
      handle
        .prepare(
          "SELECT (SELECT count(*) FROM clicks WHERE link_num = l.num) + (SELECT count(*) FROM click_staging WHERE link_num = l.num) FROM links l WHERE l.id = ?",
        )
        .pluck()
        .get(id),
    );

  // The links were created in this order: the batch writes them in this order (link numbers).
  handle.exec(`CREATE TEMP TRIGGER fail_last BEFORE INSERT ON clicks WHEN NEW.link_num = ${links[2]!.num} BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
  await expect(writer.write(batch)).rejects.toThrow("disk trouble");
  expect(ids.map(stored)).toEqual([2_500, 2_500, 0]);

  handle.exec("DROP TRIGGER fail_last");
  await writer.write(batch);
  expect(ids.map(stored)).toEqual([2_500, 2_500, 2_500]);
  await writer.flushRollups();
  const counts = handle.prepare("SELECT click_count FROM links WHERE id = ?").pluck();
  expect(ids.map((id) => Number(counts.get(id)))).toEqual([2_500, 2_500, 2_500]);
  const daily = handle.prepare("SELECT sum(clicks) FROM click_daily WHERE link_id = ?").pluck();
  expect(ids.map((id) => Number(daily.get(id)))).toEqual([2_500, 2_500, 2_500]);

  // Another batch starts from its first row.
  await writer.write(
    batchOf([{ linkId: ids[0]!, linkNum: links[0]!.num, at, userAgent: UA.windows, referer: "", ip: "", country: null, counted: false, destination: null }]),
  );
  expect(stored(ids[0]!)).toBe(2_501);
  await writer.flushRollups();
  expect(Number(handle.prepare("SELECT count(*) FROM clicks").pluck().get())).toBe(7_501);
  expect(Number(handle.prepare("SELECT count(*) FROM click_staging").pluck().get())).toBe(0);
});
