// Exactness under concurrency and across instances: click limits, deletion propagation between
// instances, and no click lost over a graceful shutdown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { within } from "../helpers/wait.js";

async function storedCount(server: TestServer, id: string): Promise<number> {
  const row = await server.ctx.storage.db.selectFrom("links").select("click_count").where("id", "=", id).executeTakeFirstOrThrow();
  return Number(row.click_count);
}

async function rawClicks(server: TestServer, id: string): Promise<number> {
  const row = await server.ctx.storage.db
    .selectFrom("clicks")
    .innerJoin("links", "links.num", "clicks.link_num")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("links.id", "=", id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function hammer(urls: string[]): Promise<number[]> {
  return Promise.all(urls.map((u) => fetch(u, { redirect: "manual" }).then(async (r) => (await r.arrayBuffer(), r.status))));
}

describe.each(ENGINES)("click limit on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await signedInClient(server, "limits@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("200 simultaneous visits to a link limited to 50: exactly 50 redirects and 150 refusals", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/limited", alias: "fifty", max_clicks: 50 });
    expect(r.status).toBe(201);
    const statuses = await hammer(Array.from({ length: 200 }, () => `${server.url}/fifty`));
    expect(statuses.filter((s) => s === 302)).toHaveLength(50);
    expect(statuses.filter((s) => s === 403)).toHaveLength(150);
    await server.ctx.clicks.flush();
    expect(await storedCount(server, r.body.link.id)).toBe(50);
    expect(await rawClicks(server, r.body.link.id)).toBe(50);
  });

  it("a limit added later counts the clicks already served, even while counts are held back", async () => {
    const slow = await startTestServer({ engine, env: { CLICK_FLUSH_MS: "60000", CLICK_ROLLUP_MS: "600000" } });
    try {
      const client = await signedInClient(slow, "late-limit@example.com", "pro");
      const r = await client.post("/api/links", { url: "https://example.com/late", alias: "late-limit" });
      expect(r.status).toBe(201);
      for (let i = 0; i < 5; i++) expect((await fetch(`${slow.url}/late-limit`, { redirect: "manual" })).status).toBe(302);
      // Nothing written yet: the five clicks are still buffered.
      expect(await storedCount(slow, r.body.link.id)).toBe(0);
      expect((await client.patch(`/api/links/${r.body.link.id}`, { max_clicks: 6 })).status).toBe(200);
      expect(await storedCount(slow, r.body.link.id)).toBe(5);
      expect((await fetch(`${slow.url}/late-limit`, { redirect: "manual" })).status).toBe(302);
      expect((await fetch(`${slow.url}/late-limit`, { redirect: "manual" })).status).toBe(403);
    } finally {
      await slow.close();
    }
  });
});

describe.runIf(ENGINES.includes("postgres"))("two instances on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  let owner: ApiClient;
  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres" });
    b = await startTestServer({ databaseUrl: a.databaseUrl });
    owner = await signedInClient(a, "multi@example.com", "pro");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("the click limit holds across instances: 200 visits split between them, 50 redirects", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/shared", alias: "shared-fifty", max_clicks: 50 });
    expect(r.status).toBe(201);
    const urls = Array.from({ length: 200 }, (_, i) => `${i % 2 ? a.url : b.url}/shared-fifty`);
    const statuses = await hammer(urls);
    expect(statuses.filter((s) => s === 302)).toHaveLength(50);
    expect(statuses.filter((s) => s === 403)).toHaveLength(150);
    await Promise.all([a.ctx.clicks.flush(), b.ctx.clicks.flush()]);
    expect(await storedCount(a, r.body.link.id)).toBe(50);
    expect(await rawClicks(a, r.body.link.id)).toBe(50);
  });

  it("a link deleted on one instance answers 404 on the other within a second", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/cached", alias: "cached-elsewhere" });
    expect((await fetch(`${b.url}/cached-elsewhere`, { redirect: "manual" })).status).toBe(302);
    expect(b.ctx.redirects.cache.size).toBeGreaterThan(0);
    expect((await owner.delete(`/api/links/${r.body.link.id}`)).status).toBe(200);
    const status = await within(
      1000,
      async () => (await fetch(`${b.url}/cached-elsewhere`, { redirect: "manual" })).status,
      (s) => s === 404,
    );
    expect(status).toBe(404);
  });

  it("an edit on one instance reaches the other's cache", async () => {
    const r = await owner.post("/api/links", { url: "https://example.com/v1", alias: "edited-elsewhere" });
    expect((await fetch(`${b.url}/edited-elsewhere`, { redirect: "manual" })).headers.get("location")).toBe("https://example.com/v1");
    await owner.patch(`/api/links/${r.body.link.id}`, { url: "https://example.com/v2" });
    const location = await within(
      1000,
      async () => (await fetch(`${b.url}/edited-elsewhere`, { redirect: "manual" })).headers.get("location"),
      (l) => l === "https://example.com/v2",
    );
    expect(location).toBe("https://example.com/v2");
  });
});

describe.each(ENGINES)("graceful shutdown on %s", (engine) => {
  it("every click served before stop is in the database after a restart", async () => {
    const first = await startTestServer({ engine, env: { CLICK_FLUSH_MS: "60000" } });
    let second: TestServer | null = null;
    try {
      const owner = await signedInClient(first, "restart@example.com", "free");
      const r = await owner.post("/api/links", { url: "https://example.com/restart", alias: "restart-me" });
      const statuses = await hammer(Array.from({ length: 120 }, () => `${first.url}/restart-me`));
      expect(statuses.every((s) => s === 302)).toBe(true);
      expect(first.ctx.clicks.pending).toBe(120); // still buffered: the flush interval is a minute
      await first.stop();
      second = await startTestServer({ engine, dataDir: first.dataDir, databaseUrl: first.databaseUrl });
      expect(await storedCount(second, r.body.link.id)).toBe(120);
      expect(await rawClicks(second, r.body.link.id)).toBe(120);
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
