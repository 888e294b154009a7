// Clicks buffered for a link that is deleted before they are written: the batch still lands for every
// other link, the deleted link's clicks are dropped with it (no error, no retry loop, no orphan rows).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe.each(ENGINES)("clicks of a link deleted before the flush on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { CLICK_FLUSH_MS: "60000" } });
  });
  afterAll(async () => server?.close());

  it("stores the live link's clicks and drops the deleted link's", async () => {
    const user = await server.ctx.accounts.create({ email: `gone-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const kept = await server.ctx.links.create(user, { url: "https://example.com/kept" });
    const gone = await server.ctx.links.create(user, { url: "https://example.com/gone" });
    const at = Date.now();
    // 240 interleaved clicks: every statement of several rows holds some of the deleted link's.
    for (let i = 0; i < 240; i++) {
      const link = i % 2 ? gone : kept;
      server.ctx.clicks.record({
        linkId: link.id,
        linkNum: link.num,
        at: at + i,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
        referer: "",
        ip: "",
        country: null,
        counted: false,
        destination: null,
      });
    }
    await server.ctx.links.delete(user, gone.id);
    await server.ctx.clicks.flush();
    if (engine === "sqlite") {
      // The raw clicks are written without the foreign-key check; the roll-up removed the deleted link's.
      expect(server.ctx.storage.sqlite!.pragma("foreign_key_check")).toEqual([]);
    }
    expect(server.ctx.clicks.pending).toBe(0);
    const db = server.ctx.storage.db;
    const raw = await db
      .selectFrom("clicks")
      .select(["link_num", (eb) => eb.fn.countAll<number>().as("n")])
      .where("link_num", "in", [kept.num, gone.num])
      .groupBy("link_num")
      .execute();
    expect(raw.map((r) => [Number(r.link_num), Number(r.n)])).toEqual([[kept.num, 120]]);
    const row = await db.selectFrom("links").select("click_count").where("id", "=", kept.id).executeTakeFirstOrThrow();
    expect(Number(row.click_count)).toBe(120);
    const daily = await db
      .selectFrom("click_daily")
      .select((eb) => eb.fn.sum<number>("clicks").as("n"))
      .where("link_id", "in", [kept.id, gone.id])
      .executeTakeFirstOrThrow();
    expect(Number(daily.n)).toBe(120);
  });
});
