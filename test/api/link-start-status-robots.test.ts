// Start dates (404 not_started with the date, no click, until starts_at), redirect codes (301/302/307/308,
// 301/308 cacheable for REDIRECT_MAX_AGE), robots (/robots.txt allows crawlable links only; X-Robots-Tag on
// the others' redirects), on the fast path (second visit, from the cache) and the full one alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hit } from "../helpers/host.js";
import { createLink, storedClicks } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

describe.each(ENGINES)("start date, redirect status and robots on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  let free: ApiClient;
  const go = (alias: string, accept = "text/html") => fetch(`${server.url}/${alias}`, { redirect: "manual", headers: { accept } });
  /** Twice: the second answer comes from the link cache (the fast path) and must be the same. */
  const twice = async (alias: string) => {
    const a = await go(alias);
    const b = await go(alias);
    for (const h of ["location", "cache-control", "x-robots-tag"]) expect(b.headers.get(h), h).toBe(a.headers.get(h));
    expect(b.status).toBe(a.status);
    return a;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.UTC(2026, 10, 28, 9, 0, 0));
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "start@example.com", "pro");
    free = await signedInClient(server, "start-free@example.com", "free");
  });
  afterAll(async () => server?.close());

  it("before starts_at: 404 not_started with the date (page and JSON), no click; from then on a redirect and a click", async () => {
    const starts = new Date(clock.now() + 3_600_000).toISOString();
    const link = await createLink(pro, { url: "https://example.com/launch", alias: "launch-day", starts_at: starts });
    expect((await pro.get(`/api/links/${link.id}`)).body.link.starts_at).toBe(starts);
    const page = await twice("launch-day");
    expect(page.status).toBe(404);
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    expect(await page.text()).toContain("This short link opens on 2026-11-28 10:00 UTC.");
    const json = await go("launch-day", "application/json");
    expect(json.status).toBe(404);
    expect(await json.json()).toEqual({ status: "error", code: "not_started", message: "This short link opens on 2026-11-28 10:00 UTC.", starts_at: starts });
    expect(await storedClicks(server, link.id)).toBe(0);
    clock.advance(3_600_000);
    const open = await twice("launch-day");
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe("https://example.com/launch");
    expect(await storedClicks(server, link.id)).toBe(2);
  });

  it("starts_at is Pro and up, a real date, before the expiry; null clears it", async () => {
    const at = new Date(clock.now() + 60_000).toISOString();
    const refused = await free.post("/api/links", { url: "https://example.com/x", starts_at: at });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("plan_required");
    const bad = await pro.post("/api/links", { url: "https://example.com/x", starts_at: "tomorrow" });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: "starts_at", message: "Enter a date and time such as 2026-11-21T10:00:00.000Z" }]);
    const late = await pro.post("/api/links", {
      url: "https://example.com/x",
      starts_at: new Date(clock.now() + 7_200_000).toISOString(),
      expires_at: new Date(clock.now() + 3_600_000).toISOString(),
    });
    expect(late.status).toBe(400);
    expect(late.body.details).toEqual([{ field: "starts_at", message: "Choose a start date before the expiry date" }]);
    const link = await createLink(pro, { url: "https://example.com/soon", alias: "soon-cleared", starts_at: at });
    expect((await go("soon-cleared")).status).toBe(404);
    const cleared = await pro.patch(`/api/links/${link.id}`, { starts_at: null });
    expect(cleared.body.link.starts_at).toBeNull();
    expect((await twice("soon-cleared")).status).toBe(302);
  });

  it("redirect_status: 301 and 308 cacheable for an hour, 302 and 307 never; 302 by default; others refused", async () => {
    const cases: [number | undefined, number, string][] = [
      [301, 301, "private, max-age=3600"],
      [308, 308, "private, max-age=3600"],
      [307, 307, "private, no-store"],
      [302, 302, "private, no-store"],
      [undefined, 302, "private, no-store"],
    ];
    for (const [given, status, cache] of cases) {
      const alias = `code-${given ?? "default"}`;
      const link = await createLink(pro, { url: "https://example.com/code", alias, ...(given ? { redirect_status: given } : {}) });
      expect((await pro.get(`/api/links/${link.id}`)).body.link.redirect_status).toBe(given ?? null);
      const r = await twice(alias);
      expect([r.status, r.headers.get("cache-control"), r.headers.get("x-robots-tag"), r.headers.get("location")]).toEqual([
        status,
        cache,
        "noindex",
        "https://example.com/code",
      ]);
    }
    for (const wrong of [303, 200, 0, -301, 3010]) {
      const r = await pro.post("/api/links", { url: "https://example.com/x", redirect_status: wrong });
      expect(r.status, String(wrong)).toBe(400);
      expect(r.body.details).toEqual([{ field: "redirect_status", message: "Choose 301, 302, 307 or 308" }]);
    }
    expect((await pro.post("/api/links", { url: "https://example.com/x", redirect_status: "301" })).status).toBe(400);
    // An edit reaches the cache at once.
    const link = await createLink(pro, { url: "https://example.com/code", alias: "code-edit" });
    expect((await twice("code-edit")).status).toBe(302);
    await pro.patch(`/api/links/${link.id}`, { redirect_status: 308 });
    expect((await twice("code-edit")).status).toBe(308);
    await pro.patch(`/api/links/${link.id}`, { redirect_status: null });
    expect((await twice("code-edit")).status).toBe(302);
  });

  it("crawlable: no X-Robots-Tag on its redirects, and /robots.txt allows it alone, per host", async () => {
    const a = await createLink(pro, { url: "https://example.com/seo", alias: "seo-page", crawlable: true });
    await createLink(pro, { url: "https://example.com/seo", alias: "seo-page-private" });
    expect((await pro.get(`/api/links/${a.id}`)).body.link.crawlable).toBe(true);
    const r = await twice("seo-page");
    expect(r.status).toBe(302);
    expect(r.headers.get("x-robots-tag")).toBeNull();
    const robots = await fetch(`${server.url}/robots.txt`);
    expect(robots.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const body = await robots.text();
    expect(body.split("\n").filter((l) => !l.startsWith("#"))).toEqual(["User-agent: *", "Allow: /seo-page$", "Disallow: /", ""]);
    // A custom domain lists its own crawlable links only.
    const owner = (await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", "start@example.com").executeTakeFirstOrThrow()).id;
    await verifiedDomain(server, "dom0000000000robot", owner, "go.robots.example");
    const onDomain = await hit(server.url, "/robots.txt", "go.robots.example");
    expect(onDomain.body.split("\n").filter((l) => !l.startsWith("#"))).toEqual(["User-agent: *", "Disallow: /", ""]);
    await pro.patch(`/api/links/${a.id}`, { crawlable: false });
    expect((await twice("seo-page")).headers.get("x-robots-tag")).toBe("noindex");
    expect(await (await fetch(`${server.url}/robots.txt`)).text()).not.toContain("Allow:");
  });

  it("the external creation API takes the fields (Business and up)", async () => {
    const biz = await signedInClient(server, "start-ext@example.com", "business");
    const secret = (await biz.post("/api/keys", { name: "ext" })).body.secret as string;
    const call = (body: unknown) =>
      fetch(`${server.url}/api/external-create.php`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const r = await call({
      url: "https://example.com/ext",
      alias: "ext-301",
      redirect_status: 301,
      crawlable: true,
      starts_at: new Date(clock.now() - 1000).toISOString(),
    });
    expect(r.status).toBe(201);
    const link = ((await r.json()) as { link: { redirect_status: number; crawlable: boolean } }).link;
    expect([link.redirect_status, link.crawlable]).toEqual([301, true]);
    expect((await twice("ext-301")).status).toBe(301);
    const bad = await call({ url: "https://example.com/ext", redirect_status: 304 });
    expect(bad.status).toBe(400);
  });

  it("bulk rows and the list carry the fields", async () => {
    const biz = await signedInClient(server, "start-biz@example.com", "business");
    const r = await biz.post("/api/links/bulk", {
      links: [
        { url: "https://example.com/b1", alias: "bulk-308", redirect_status: 308, crawlable: true },
        { url: "https://example.com/b2", redirect_status: 999 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: string }) => x.status)).toEqual(["created", "error"]);
    const list = await biz.get("/api/links?q=bulk-308");
    expect(
      list.body.links.map((l: { redirect_status: number; crawlable: boolean; starts_at: string | null }) => [l.redirect_status, l.crawlable, l.starts_at]),
    ).toEqual([[308, true, null]]);
  });
});

describe.each(ENGINES)("REDIRECT_STATUS and REDIRECT_MAX_AGE on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { REDIRECT_STATUS: "301", REDIRECT_MAX_AGE: "120" } });
  });
  afterAll(async () => server?.close());

  it("links without their own status answer the instance's; their own wins", async () => {
    const c = await signedInClient(server, "default-status@example.com", "free");
    await createLink(c, { url: "https://example.com/d", alias: "inst-default" });
    await createLink(c, { url: "https://example.com/d", alias: "inst-own", redirect_status: 307 });
    for (let i = 0; i < 2; i++) {
      const a = await fetch(`${server.url}/inst-default`, { redirect: "manual" });
      expect([a.status, a.headers.get("cache-control")]).toEqual([301, "private, max-age=120"]);
      const b = await fetch(`${server.url}/inst-own`, { redirect: "manual" });
      expect([b.status, b.headers.get("cache-control")]).toEqual([307, "private, no-store"]);
    }
  });
});
