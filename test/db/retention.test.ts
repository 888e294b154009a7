// Raw click retention: old click rows are deleted, the roll-ups that statistics read stay.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe.each(ENGINES)("click retention on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));
  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { CLICK_RETENTION_DAYS: "30" } });
  });
  afterAll(async () => server?.close());

  it("prunes raw clicks past CLICK_RETENTION_DAYS and keeps the daily roll-ups and the count", async () => {
    const user = await server.ctx.accounts.create({ email: `ret-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await server.ctx.links.create(user, { url: "https://example.com/retained" });
    const click = (at: number) =>
      server.ctx.clicks.record({
        linkId: link.id,
        linkNum: link.num,
        at,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
        referer: "",
        ip: "203.0.113.9",
        country: null,
        counted: false,
        destination: null,
      });
    const old = clock.now();
    click(old);
    click(old + 1000);
    clock.advance(40 * 86_400_000);
    click(clock.now());
    await server.ctx.clicks.flush();

    expect(await server.ctx.clicks.pruneRaw()).toBe(2);
    const db = server.ctx.storage.db;
    const raw = await db.selectFrom("clicks").select("at").where("link_num", "=", link.num).execute();
    expect(raw.map((r) => Number(r.at))).toEqual([clock.now()]);
    const daily = await db.selectFrom("click_daily").select(["day", "clicks"]).where("link_id", "=", link.id).orderBy("day").execute();
    expect(daily.map((d) => [d.day, Number(d.clicks)])).toEqual([
      ["2026-01-10", 2],
      ["2026-02-19", 1],
    ]);
    const row = await db.selectFrom("links").select("click_count").where("id", "=", link.id).executeTakeFirstOrThrow();
    expect(Number(row.click_count)).toBe(3);
  });

  it("deletes more than one transaction's worth, oldest first, and keeps everything within the period", async () => {
    const user = await server.ctx.accounts.create({ email: `ret-many-${engine}@example.com`, password: "correct horse 1", plan: "pro", verified: true });
    const link = await server.ctx.links.create(user, { url: "https://example.com/many" });
    const start = clock.now();
    const record = (at: number) =>
      server.ctx.clicks.record({
        linkId: link.id,
        linkNum: link.num,
        at,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
        referer: "",
        ip: "",
        country: null,
        counted: false,
        destination: null,
      });
    // 25,000 clicks over ten days, then 3 recent ones.
    for (let i = 0; i < 25_000; i++) record(start + i * 34_560);
    clock.advance(45 * 86_400_000);
    for (let i = 0; i < 3; i++) record(clock.now() + i);
    await server.ctx.clicks.flush();
    // And the one click the test before kept, now past the period too.
    expect(await server.ctx.clicks.pruneRaw()).toBe(25_001);
    const left = await server.ctx.storage.db.selectFrom("clicks").select("at").where("link_num", "=", link.num).orderBy("id").execute();
    expect(left.map((r) => Number(r.at) - clock.now())).toEqual([0, 1, 2]);
    expect(await server.ctx.clicks.pruneRaw()).toBe(0);
  });
});
