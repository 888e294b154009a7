// links.last_click_at rides on the click writers' click_count updates: the latest counted click's time,
// never moved back, left null for a link never clicked; click-limited links get it as they are counted.
// Each engine with the writer thread and inline (the click-limit count takes another path in each).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";

const WRITERS = ["worker", "inline"] as const;

describe.each(ENGINES.flatMap((engine) => WRITERS.map((writer) => [engine, writer] as const)))("last_click_at on %s, %s writer", (engine, writer) => {
  let server: TestServer;
  let owner: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { CLICK_WRITER: writer } });
    owner = await signedInClient(server, `last-click-${writer}@example.com`, "pro");
  });
  afterAll(async () => server?.close());

  async function stored(id: string): Promise<{ count: number; last: number | null }> {
    const row = await server.ctx.storage.db.selectFrom("links").select(["click_count", "last_click_at"]).where("id", "=", id).executeTakeFirstOrThrow();
    return { count: Number(row.click_count), last: row.last_click_at === null ? null : Number(row.last_click_at) };
  }

  async function visit(alias: string, times = 1): Promise<{ from: number; to: number }> {
    const from = Date.now();
    for (let i = 0; i < times; i++) expect((await fetch(`${server.url}/${alias}`, { redirect: "manual" })).status).toBe(302);
    return { from, to: Date.now() };
  }

  /** The link's stored last_click_at was set during a visit. */
  async function lastSetDuring(id: string, visited: { from: number; to: number }): Promise<number> {
    const { last } = await stored(id);
    expect(last).toBeGreaterThanOrEqual(visited.from);
    expect(last).toBeLessThanOrEqual(visited.to);
    return last!;
  }

  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("set with click_count by the roll-up, to the latest click's time; null for a link never clicked", async () => {
    const plain = (await owner.post("/api/links", { url: "https://example.com/p", alias: `plain-${writer}` })).body.link;
    const never = (await owner.post("/api/links", { url: "https://example.com/n", alias: `never-${writer}` })).body.link;
    expect(await stored(plain.id)).toEqual({ count: 0, last: null });
    const first = await visit(plain.alias, 2);
    await server.ctx.clicks.flush();
    expect((await stored(plain.id)).count).toBe(2);
    const a = await lastSetDuring(plain.id, first);
    await pause();
    const second = await visit(plain.alias);
    await server.ctx.clicks.flush();
    expect((await stored(plain.id)).count).toBe(3);
    expect(await lastSetDuring(plain.id, second)).toBeGreaterThan(a);
    expect(await stored(never.id)).toEqual({ count: 0, last: null });
  });

  it("never moves back: a later time already stored stays", async () => {
    const link = (await owner.post("/api/links", { url: "https://example.com/f", alias: `future-${writer}` })).body.link;
    const future = Date.now() + 86_400_000;
    await server.ctx.storage.db.updateTable("links").set({ last_click_at: future }).where("id", "=", link.id).execute();
    await visit(link.alias);
    await server.ctx.clicks.flush();
    expect(await stored(link.id)).toEqual({ count: 1, last: future });
  });

  it("a click-limited link gets it as each click is counted, before any roll-up; refused visits leave it", async () => {
    const link = (await owner.post("/api/links", { url: "https://example.com/l", alias: `limited-${writer}`, max_clicks: 2 })).body.link;
    const first = await visit(link.alias);
    expect((await stored(link.id)).count).toBe(1);
    await lastSetDuring(link.id, first);
    await pause();
    const last = await lastSetDuring(link.id, await visit(link.alias));
    expect((await fetch(`${server.url}/${link.alias}`, { redirect: "manual" })).status).toBe(403);
    await server.ctx.clicks.flush();
    expect(await stored(link.id)).toEqual({ count: 2, last });
  });
});
