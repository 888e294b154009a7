// The raw redirect fast path (src/http/fast-redirect.ts) gives exactly the slow path's answer: the first
// visit of a link goes through Fastify (cache miss), the second is answered from the cache before
// Fastify; status, Location and every header but Date must match, and each one counts one click.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLink, storedClicks } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";
import { PASSWORD_FORM } from "../../src/redirect/resolve-link.js";

const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Raw node:http request (fetch can set neither Host nor see the exact header list). */
function raw(url: string, path: string, headers: Record<string, string>, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        const { date: _date, ...rest } = res.headers;
        resolve({ status: res.statusCode ?? 0, headers: rest, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe.each(ENGINES)("redirect fast path on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  let slow: ReturnType<typeof vi.spyOn>;
  let fast: ReturnType<typeof vi.spyOn>;
  const create = (body: Record<string, unknown>) => createLink(pro, body);
  const count = (id: string) => storedClicks(server, id);
  /** The same request twice: the first through Fastify (cache miss), the second through the fast path. */
  const twice = async (path: string, headers: Record<string, string> = {}, method = "GET") => {
    slow.mockClear();
    fast.mockClear();
    const first = await raw(server.url, path, { "user-agent": DESKTOP, ...headers }, method);
    const second = await raw(server.url, path, { "user-agent": DESKTOP, ...headers }, method);
    return { first, second };
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "fast@example.com", "pro");
    slow = vi.spyOn(server.ctx.redirects, "visit");
    fast = vi.spyOn(server.ctx.redirects, "visitCached");
  });
  afterAll(async () => server?.close());

  it("plain link: miss through Fastify, hit from the fast path, identical 302 and one click each", async () => {
    const link = await create({ url: "https://example.com/fast?x=1", alias: "fastplain" });
    const { first, second } = await twice("/fastplain");
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe("https://example.com/fast?x=1");
    expect(first.headers["cache-control"]).toBe("private, no-store");
    expect(first.headers["content-length"]).toBe("0");
    // No document headers on a bodiless redirect, on either path; noindex, as the link is not crawlable.
    expect(Object.keys(first.headers).sort()).toEqual(["cache-control", "connection", "content-length", "location", "x-robots-tag"]);
    expect(first.headers["x-robots-tag"]).toBe("noindex");
    expect(second).toEqual(first);
    // The first visit was decided by Fastify's route, the second never reached it.
    expect(slow).toHaveBeenCalledTimes(1);
    expect(fast.mock.results.at(-1)?.value).toBe("https://example.com/fast?x=1");
    expect(await count(link.id)).toBe(2);
  });

  it("HEAD, a query string and device destinations answer alike on both paths", async () => {
    const link = await create({
      url: "https://example.com/main",
      alias: "fastdev",
      ios_url: "https://apps.apple.com/x",
      android_url: "https://play.google.com/x",
    });
    const head = await twice("/fastdev", {}, "HEAD");
    expect(head.first.status).toBe(302);
    expect(head.second).toEqual(head.first);
    const query = await twice("/fastdev?url=https://evil.example&next=/x");
    expect(query.first.headers.location).toBe("https://example.com/main");
    expect(query.second).toEqual(query.first);
    const ios = await twice("/fastdev", { "user-agent": IPHONE });
    expect(ios.first.headers.location).toBe("https://apps.apple.com/x");
    expect(ios.second).toEqual(ios.first);
    const android = await twice("/fastdev", { "user-agent": ANDROID });
    expect(android.first.headers.location).toBe("https://play.google.com/x");
    expect(android.second).toEqual(android.first);
    expect(await count(link.id)).toBe(8);
  });

  it("a custom domain's host maps to its own domain (a link of BASE_URL's host is not served for it); any other host is the main host", async () => {
    await create({ url: "https://example.com/own", alias: "fasthost" });
    const own = await twice("/fasthost");
    expect(own.second).toEqual(own.first);
    const biz = await signedInClient(server, "fast-domains@example.com", "business");
    expect((await biz.post("/api/domains", { hostname: "other.example" })).status).toBe(201);
    const other = await twice("/fasthost", { host: "other.example" });
    expect(other.first.status).toBe(404);
    expect(other.second).toEqual(other.first);
    const lan = await twice("/fasthost", { host: "192.168.1.20:8080" });
    expect(lan.first).toEqual(own.first);
    expect(lan.second).toEqual(own.first);
  });

  it("outcomes the fast path leaves to Fastify answer as before: 404, 410, click limit", async () => {
    const missing = await twice("/nosuchalias", { accept: "application/json" });
    expect(missing.first.status).toBe(404);
    expect(missing.second).toEqual(missing.first);

    await create({ url: "https://example.com/e", alias: "fastexp", expires_at: new Date(clock.now() + 60_000).toISOString() });
    const before = await twice("/fastexp");
    expect(before.first.status).toBe(302);
    clock.advance(61_000);
    const after = await twice("/fastexp");
    // Expiry is checked against the clock on every visit, cached or not.
    expect(after.first.status).toBe(410);
    expect(after.second).toEqual(after.first);

    const limited = await create({ url: "https://example.com/l", alias: "fastlim", max_clicks: 1 });
    const lim = await twice("/fastlim");
    expect(lim.first.status).toBe(302);
    expect(lim.second.status).toBe(403);
    // Used up: the fast path hands the visit to Fastify's route, which answers the 403.
    expect(slow).toHaveBeenCalledTimes(2);
    expect(await count(limited.id)).toBe(1);
  });

  it("click-limited link: counted on the fast path once cached, the same 302; used up, the route's 403 or fallback URL", async () => {
    const link = await create({ url: "https://example.com/lim3", alias: "fastlim3", max_clicks: 3 });
    const { first, second } = await twice("/fastlim3");
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe("https://example.com/lim3");
    expect(second).toEqual(first);
    expect(slow).toHaveBeenCalledTimes(1);
    expect(await fast.mock.results.at(-1)?.value).toBe("https://example.com/lim3");
    const third = await raw(server.url, "/fastlim3", { "user-agent": DESKTOP });
    expect(third).toEqual(first);
    expect(slow).toHaveBeenCalledTimes(1);
    const fourth = await raw(server.url, "/fastlim3", { "user-agent": DESKTOP, accept: "application/json" });
    expect(fourth.status).toBe(403);
    expect(slow).toHaveBeenCalledTimes(2);
    expect(await count(link.id)).toBe(3);
    // Found used up once: later visits get the 403 without asking for a count again.
    const counts = vi.spyOn(server.ctx.clicks, "countLimited");
    const fifth = await raw(server.url, "/fastlim3", { "user-agent": DESKTOP, accept: "application/json" });
    expect(fifth).toEqual(fourth);
    expect(counts).not.toHaveBeenCalled();
    // A raised limit is an edit: the entry is replaced, and visits are counted again.
    expect((await pro.patch(`/api/links/${link.id}`, { max_clicks: 4 })).status).toBe(200);
    const raised = await twice("/fastlim3");
    expect(raised.first).toEqual(first);
    expect(raised.second.status).toBe(403);
    expect(counts).toHaveBeenCalledTimes(2);
    counts.mockRestore();
    expect(await count(link.id)).toBe(4);

    await create({ url: "https://example.com/lim1", alias: "fastlimfb", max_clicks: 1, expired_url: "https://example.com/sold-out" });
    const fb = await twice("/fastlimfb");
    expect(fb.first.headers.location).toBe("https://example.com/lim1");
    const over = await raw(server.url, "/fastlimfb", { "user-agent": DESKTOP });
    expect(over.status).toBe(302);
    expect(over.headers.location).toBe("https://example.com/sold-out");
    // The password page of a click-limited link needs its exact count: always the route's.
    await create({ url: "https://example.com/limpw", alias: "fastlimpw", max_clicks: 5, password: "open sesame" });
    const pw = await twice("/fastlimpw");
    expect(pw.first.status).toBe(200);
    expect(pw.second).toEqual(pw.first);
    expect(slow).toHaveBeenCalledTimes(2);
  });

  it("password link: the form page from the fast path once cached, identical (headers and body), no click", async () => {
    const link = await create({ url: "https://example.com/p", alias: "fastpw", password: "open sesame" });
    const pw = await twice("/fastpw");
    expect(pw.first.status).toBe(200);
    expect(pw.first.headers["content-security-policy"]).toContain("form-action 'self' http: https:");
    expect(pw.first.headers["x-frame-options"]).toBe("DENY");
    expect(pw.first.body).toContain('<input type="password" name="password"');
    expect(pw.second).toEqual(pw.first);
    expect(slow).toHaveBeenCalledTimes(1);
    expect(fast.mock.results.at(-1)?.value).toBe(PASSWORD_FORM);
    // HEAD (now cached): the same headers as Fastify's GET answer, no body.
    const head = await twice("/fastpw", {}, "HEAD");
    expect(head.first.body).toBe("");
    expect(head.first.headers).toEqual(pw.first.headers);
    expect(await count(link.id)).toBe(0);
  });

  it("an edit is served at once on the fast path (the cache entry is dropped)", async () => {
    const link = await create({ url: "https://example.com/old", alias: "fastedit" });
    expect((await twice("/fastedit")).second.headers.location).toBe("https://example.com/old");
    const r = await pro.patch(`/api/links/${link.id}`, { url: "https://example.com/new" });
    expect(r.status, r.text).toBe(200);
    const { first, second } = await twice("/fastedit");
    expect(first.headers.location).toBe("https://example.com/new");
    expect(second).toEqual(first);
  });

  it("paths that are not a plain alias are Fastify's: trailing slash, escapes, reserved words", async () => {
    await create({ url: "https://example.com/s", alias: "fastslash" });
    await twice("/fastslash");
    fast.mockClear();
    expect((await raw(server.url, "/fastslash/", {})).status).toBe(404);
    expect((await raw(server.url, "/fast%73lash", {})).status).toBe(302);
    expect((await raw(server.url, "/healthz", {})).status).toBe(200);
    // /healthz is asked about (it looks like an alias) but reserved words are never answered there.
    expect(fast.mock.results.every((r: { value: unknown }) => r.value === undefined)).toBe(true);
  });
});

describe.each(ENGINES)("redirect fast path behind proxies on %s", (engine) => {
  let trusted: TestServer;
  let untrusted: TestServer;
  /** The same request twice; the first must be Fastify's (a miss), the second the fast path's, with the same answer. */
  const viaBothPaths = async (server: TestServer, path: string, headers: Record<string, string>, location: string) => {
    const slow = vi.spyOn(server.ctx.redirects, "visit");
    const fast = vi.spyOn(server.ctx.redirects, "visitCached");
    try {
      const first = await raw(server.url, path, headers);
      const second = await raw(server.url, path, headers);
      expect(first.status).toBe(302);
      expect(first.headers.location).toBe(location);
      expect(second).toEqual(first);
      expect(slow).toHaveBeenCalledTimes(1);
      expect(fast.mock.results.at(-1)?.value).toBe(location);
      return slow;
    } finally {
      fast.mockRestore();
    }
  };
  const countries = async (server: TestServer, id: string) => {
    await server.ctx.clicks.flush();
    const rows = await server.ctx.storage.db
      .selectFrom("clicks")
      .innerJoin("links", "links.num", "clicks.link_num")
      .select("country")
      .where("links.id", "=", id)
      .orderBy("clicks.id")
      .execute();
    return rows.map((r) => r.country);
  };
  const host = (server: TestServer) => new URL(server.url).host;
  const pendingDomain = async (server: TestServer, hostname: string) => {
    const biz = await signedInClient(server, `domains-${hostname}@example.com`, "business");
    const r = await biz.post("/api/domains", { hostname });
    expect(r.status, r.text).toBe(201);
  };

  beforeAll(async () => {
    // Loopback (the tests' address) is the trusted proxy; for the other server only 10.0.0.0/8 is.
    trusted = await startTestServer({ engine, env: { TRUST_PROXY: "127.0.0.1" } });
    untrusted = await startTestServer({ engine, env: { TRUST_PROXY: "10.0.0.0/8" } });
  });
  afterAll(async () => {
    await trusted?.close();
    await untrusted?.close();
  });

  it("TRUST_PROXY set: cached links are still answered from the fast path, with the proxy's country and host", async () => {
    const pro = await signedInClient(trusted, "proxy@example.com", "pro");
    const link = await createLink(pro, { url: "https://example.com/proxied", alias: "proxied" });
    const headers = { "user-agent": DESKTOP, "x-forwarded-for": "203.0.113.7", "cf-ipcountry": "de" };
    const slow = await viaBothPaths(trusted, "/proxied", headers, "https://example.com/proxied");
    expect(await countries(trusted, link.id)).toEqual(["DE", "DE"]);
    // X-Forwarded-Host names the host the link is looked up for, on both paths: a pending custom domain
    // serves nothing (any host that is no custom domain would be the main host).
    await pendingDomain(trusted, "other.example");
    const elsewhere = { ...headers, "x-forwarded-host": "other.example" };
    expect((await raw(trusted.url, "/proxied", elsewhere)).status).toBe(404);
    const forwarded = { ...headers, host: "internal:9000", "x-forwarded-host": `spoofed.example, ${host(trusted)}` };
    slow.mockClear();
    expect((await raw(trusted.url, "/proxied", forwarded)).headers.location).toBe("https://example.com/proxied");
    expect(slow).not.toHaveBeenCalled();
    expect(await countries(trusted, link.id)).toEqual(["DE", "DE", "DE"]);
    slow.mockRestore();
  });

  it("a peer that is not a trusted proxy cannot set the country or the host, on either path", async () => {
    const pro = await signedInClient(untrusted, "direct@example.com", "pro");
    const link = await createLink(pro, { url: "https://example.com/direct", alias: "direct" });
    // Were the header believed, this pending custom domain would answer 404.
    await pendingDomain(untrusted, "other.example");
    const headers = { "user-agent": DESKTOP, "cf-ipcountry": "DE", "x-forwarded-host": "other.example" };
    (await viaBothPaths(untrusted, "/direct", headers, "https://example.com/direct")).mockRestore();
    expect(await countries(untrusted, link.id)).toEqual(["unknown", "unknown"]);
  });
});
