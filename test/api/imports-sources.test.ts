// Import jobs against loopback fakes of each source's API (docs/import.md), on every engine: every link
// and its fields in, Shlink's visits as clicks, a rate limit waited for, a source failing mid-way then
// resumed, a restart mid-job continued by the next start, refused tokens and addresses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { waitFor } from "../helpers/wait.js";
import { type RunningFakeSource, startFakeSource } from "../helpers/fake-sources.js";
import { shlinkBots } from "../helpers/fake-source-data.js";

const OPEN = { IMPORT_ALLOW_PRIVATE: "true" };

async function ended(c: ApiClient, id: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const j = (await c.get(`/api/imports/${id}`)).body.import;
      return ["done", "failed", "cancelled"].includes(j.state) ? j : null;
    },
    { timeoutMs, what: `import ${id} to end` },
  );
}

async function start(c: ApiClient, fake: RunningFakeSource, extra: Record<string, unknown> = {}) {
  // Fakes' short codes repeat across tests on one server, and some are too short for snip: generated instead.
  const r = await c.post("/api/imports", { source: fake.name, base_url: fake.baseUrl, token: fake.token, on_taken: "generate", ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body.import.id as string;
}

async function allLinks(server: TestServer, email: string) {
  const db = server.ctx.storage.db;
  const owner = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  return db.selectFrom("links").selectAll().where("owner_id", "=", owner.id).orderBy("alias").execute();
}

describe.each(ENGINES)("imports from API sources on %s", (engine) => {
  let server: TestServer;
  const fakes: RunningFakeSource[] = [];
  const fake = async (...args: Parameters<typeof startFakeSource>) => {
    const f = await startFakeSource(...args);
    fakes.push(f);
    return f;
  };
  beforeAll(async () => {
    server = await startTestServer({ engine, env: OPEN, importRetryDelaysMs: [20, 20] });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(fakes.map((f) => f.close()));
  });

  it("Shlink: every short URL with its fields, and its visits as clicks (snip's own bot test), over several pages", async () => {
    const src = await fake("shlink", { links: 230, visitsPerLink: (i) => (i % 10 === 1 ? 26 : 0) });
    const c = await signedInClient(server, "shlink@example.com", "business");
    const job = await ended(c, await start(c, src));
    const visits = Array.from({ length: 230 }, (_, i) => src.visitsOf(i)).reduce((a, b) => a + b, 0);
    expect(job).toMatchObject({ state: "done", total: 230, error: null, counts: { read: 230, created: 230, skipped: 0, failed: 0, visits } });
    await server.ctx.clicks.flush();
    const links = await allLinks(server, "shlink@example.com");
    expect(links).toHaveLength(230);
    const s11 = links.find((l) => l.alias === "s11")!;
    expect(s11).toMatchObject({ url: "https://example.com/shlink/11", domain: "", click_count: 26, title: null });
    const s12 = links.find((l) => l.alias === "s12")!;
    expect(s12).toMatchObject({
      title: "Shlink 12",
      ios_url: "https://example.com/ios/12",
      android_url: "https://example.com/android/12",
      expires_at: Date.UTC(2024, 0, 1) + 12 * 3_600_000 + 30 * 86_400_000,
    });
    const stats = (await c.get(`/api/links/${s11.id}/stats?range=all`)).body;
    expect(stats.total_clicks).toBe(26);
    // Visits 2, 5, ..., 23 are curl's: snip's bot test flags those 8, whatever Shlink's potentialBot said (2).
    expect(stats.bots).toBe(8);
    expect(shlinkBots(26)).toBe(2);
    const pages = src.requestsOf("links").map((r) => r.page);
    expect(pages).toEqual([1, 2, 3]);
  });

  it("Bitly: back-halves, tags and click totals (shown as imported); a re-run skips every link", async () => {
    const src = await fake("bitly", { links: 40 });
    const c = await signedInClient(server, "bitly@example.com", "business");
    const job = await ended(c, await start(c, src));
    expect(job.counts).toEqual({ read: 40, created: 40, skipped: 0, failed: 0, visits: 0 });
    const l9 = (await allLinks(server, "bitly@example.com")).find((l) => l.url === "https://example.com/bitly/9")!;
    expect(Number(l9.imported_clicks)).toBe(27);
    const again = await ended(c, await start(c, src));
    expect(again.counts).toEqual({ read: 40, created: 0, skipped: 40, failed: 0, visits: 0 });
    expect(await allLinks(server, "bitly@example.com")).toHaveLength(40);
  });

  it("YOURLS, Kutt and Dub: every link in", async () => {
    const clients = new Map<string, ApiClient>();
    let dubSrc: RunningFakeSource | null = null;
    for (const name of ["yourls", "kutt", "dub"] as const) {
      const src = await fake(name, { links: 120 });
      if (name === "dub") dubSrc = src;
      const c = await signedInClient(server, `${name}@example.com`, "business");
      clients.set(name, c);
      const job = await ended(c, await start(c, src));
      expect(job, name).toMatchObject({ state: "done", counts: { read: 120, created: 120, failed: 0 } });
      expect(await allLinks(server, `${name}@example.com`), name).toHaveLength(120);
    }
    // Dub's conversion totals are carried as imported counts, shown in the link's statistics beside its own.
    const dub = clients.get("dub")!;
    const byUrl = new Map((await allLinks(server, "dub@example.com")).map((l) => [l.url, l]));
    const d7 = byUrl.get("https://example.com/dub/7")!;
    const d8 = byUrl.get("https://example.com/dub/8")!;
    const d9 = byUrl.get("https://example.com/dub/9")!;
    expect(Number(d7.imported_clicks)).toBe(35);
    const stats = async (id: string) => (await dub.get(`/api/links/${id}/stats?range=7d`)).body;
    const s7 = await stats(d7.id);
    expect([s7.imported_conversions, s7.leads, s7.sales]).toEqual([{ leads: 7, sales: 1, revenue: { USD: 1999 } }, 0, 0]);
    expect((await stats(d8.id)).imported_conversions).toEqual({ leads: 8, sales: 0, revenue: {} });
    // Every third link had none: no imported figures.
    expect("imported_conversions" in (await stats(d9.id))).toBe(false);
    // Dub's folders become folders (GET /folders read once); a folder Dub does not list leaves the link in none, said in its report line.
    expect((await dub.get("/api/folders")).body.folders.map((f: { name: string; link_count: number }) => [f.name, f.link_count])).toEqual([["Clients", 11]]);
    const clientsFolder = (await dub.get("/api/folders")).body.folders[0].id as string;
    expect([
      byUrl.get("https://example.com/dub/1")!.folder_id,
      byUrl.get("https://example.com/dub/3")!.folder_id,
      byUrl.get("https://example.com/dub/2")!.folder_id,
    ]).toEqual([clientsFolder, null, null]);
    expect(dubSrc!.requestsOf("folders")).toHaveLength(1);
  });

  it("Bitly: with several groups, each group's links go into a folder of its name", async () => {
    const src = await fake("bitly", { links: 30, groups: 3 });
    const c = await signedInClient(server, "bitly-groups@example.com", "business");
    expect((await ended(c, await start(c, src))).counts).toMatchObject({ read: 30, created: 30, failed: 0 });
    const folders = (await c.get("/api/folders")).body.folders.map((f: { name: string; link_count: number }) => [f.name, f.link_count]);
    // 10 links a group, archived ones (every 7th from the 4th: 3, 10, 17, 24) not counted.
    expect(folders).toEqual([
      ["Group 0", 9],
      ["Group 1", 8],
      ["Group 2", 9],
    ]);
    // On a plan without folders, the links come in and their groups are left out.
    const pro = await signedInClient(server, "bitly-groups-pro@example.com", "pro");
    expect((await ended(pro, await start(pro, src))).counts).toMatchObject({ read: 30, failed: 0 });
    expect((await pro.get("/api/folders")).body.folders).toEqual([]);
  });

  it("a rate-limited page is read again after Retry-After; a source failing mid-way fails the job, and resume continues from the last page", async () => {
    const src = await fake("shlink", { links: 350, visitsPerLink: () => 0 });
    src.rateLimitOnce(2, "1");
    src.failFrom(3);
    const c = await signedInClient(server, "flaky@example.com", "pro");
    const id = await start(c, src);
    const failed = await ended(c, id);
    expect(failed).toMatchObject({ state: "failed", counts: { read: 200, created: 200 } });
    expect(failed.error).toMatch(/answered 500/);
    const limited = src.requestsOf("links").filter((r) => r.page === 2);
    expect(limited.map((r) => r.status)).toEqual([429, 200]);
    expect(limited[1]!.at - limited[0]!.at).toBeGreaterThanOrEqual(1_000);

    src.failFrom(null);
    expect((await c.post(`/api/imports/${id}/resume`)).status).toBe(200);
    const done = await ended(c, id);
    expect(done).toMatchObject({ state: "done", error: null, counts: { read: 350, created: 350, skipped: 0, failed: 0 } });
    expect(src.requestsOf("links").filter((r) => r.page === 1)).toHaveLength(1);
    expect(await allLinks(server, "flaky@example.com")).toHaveLength(350);
    const resumeDone = await c.post(`/api/imports/${id}/resume`);
    expect(resumeDone.status).toBe(409);
  });

  it("cancel stops after the page in hand; resume continues after it, no page read twice", async () => {
    const src = await fake("kutt", { links: 140 });
    src.rateLimitOnce(2, "2");
    const c = await signedInClient(server, "cancel@example.com", "pro");
    const id = await start(c, src);
    await waitFor(() => src.requestsOf("links").some((r) => r.page === 2), { what: "page 2 asked" });
    const cancelled = await c.post(`/api/imports/${id}/cancel`);
    // Cancelled, and still worked on: the page in hand (waiting out its Retry-After) is finished first.
    expect(cancelled.body.import).toMatchObject({ state: "cancelled", working: true });
    await waitFor(async () => (await c.get(`/api/imports/${id}`)).body.import.counts.read === 100, { what: "page 2 saved" });
    await server.ctx.imports.runner.idle();
    expect((await c.get(`/api/imports/${id}`)).body.import).toMatchObject({ state: "cancelled", working: false, counts: { read: 100, created: 100 } });
    expect(src.requestsOf("links").filter((r) => r.page === 3)).toEqual([]);
    // Queued, or already claimed again by the time the answer reads it.
    expect(["queued", "running"]).toContain((await c.post(`/api/imports/${id}/resume`)).body.import.state);
    const done = await ended(c, id);
    expect(done).toMatchObject({ state: "done", counts: { read: 140, created: 140, skipped: 0, failed: 0 } });
    expect(
      src
        .requestsOf("links")
        .filter((r) => r.status === 200)
        .map((r) => r.page),
    ).toEqual([1, 2, 3]);
  });

  it("refuses a wrong token and a private address unless allowed; the token never shows", async () => {
    const src = await fake("kutt", { links: 3 });
    const c = await signedInClient(server, "refused@example.com", "pro");
    const wrong = await c.post("/api/imports/preview", { source: "kutt", base_url: src.baseUrl, token: "not-the-token" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details[0].field).toBe("token");
    expect(wrong.text).not.toContain("not-the-token");
    const job = await ended(c, await start(c, src, { token: "not-the-token" }));
    expect(job.state).toBe("failed");
    expect(job.error).toMatch(/refused the token/);
    const closed = await startTestServer({ engine });
    try {
      const d = await signedInClient(closed, "closed@example.com", "pro");
      const r = await d.post("/api/imports/preview", { source: "kutt", base_url: src.baseUrl, token: src.token });
      expect(r.status).toBe(400);
      expect(r.body.details[0]).toMatchObject({ field: "base_url" });
      expect(r.body.details[0].message).toMatch(/loopback/);
    } finally {
      await closed.close();
    }
  });
});

describe.each(ENGINES)("an import across a restart on %s", (engine) => {
  let db: TestDatabase;
  let src: RunningFakeSource;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    src = await startFakeSource("dub", { links: 450 });
  });
  afterAll(async () => {
    await src?.close();
    await db?.drop();
  });

  it("a server stopped mid-job lets it go; the next start continues from the last page, nothing read twice or duplicated", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dataDir = mkdtempSync(join(tmpdir(), "snip-import-restart-"));
    const first = await startTestServer({ dataDir, databaseUrl: db.databaseUrl, env: { ...OPEN, SESSION_SECRET: "restart-secret-0123456789abcdef0123" } });
    const c = await signedInClient(first, "restart@example.com", "pro");
    // Page 3 answers 429 with a 2 s wait: the server stops while the job waits there.
    src.rateLimitOnce(3, "2");
    const id = await start(c, src);
    await waitFor(() => src.requestsOf("links").some((r) => r.page === 3), { what: "page 3 asked" });
    await first.stop();
    const second = await startTestServer({ dataDir, databaseUrl: db.databaseUrl, env: { ...OPEN, SESSION_SECRET: "restart-secret-0123456789abcdef0123" } });
    try {
      const d = new (c.constructor as typeof ApiClient)(second.url);
      await d.login("restart@example.com");
      const job = await ended(d, id);
      expect(job).toMatchObject({ state: "done", counts: { read: 450, created: 450, skipped: 0, failed: 0 } });
      const pages = src
        .requestsOf("links")
        .filter((r) => r.status === 200)
        .map((r) => r.page);
      expect(pages).toEqual([1, 2, 3, 4, 5]);
      expect(await allLinks(second, "restart@example.com")).toHaveLength(450);
    } finally {
      await second.close();
    }
  });
});
