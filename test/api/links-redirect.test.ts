// The short-link redirect: every outcome of docs/api.md's table in order of precedence, device destinations,
// HTML vs JSON answers, query strings, HEAD, the password form with its throttle, and escaping.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLink, storedClicks } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
/** fetch() does not let a caller set Host; node:http does. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";

describe.each(ENGINES)("redirect on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let pro: ApiClient;
  const go = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(server.url + path, { method, redirect: "manual", headers: { "user-agent": DESKTOP, ...headers } });
  const postPassword = (alias: string, password: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/${alias}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ password }).toString(),
    });
  const create = (body: Record<string, unknown>) => createLink(pro, body);
  const count = (id: string) => storedClicks(server, id);

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestServer({ engine, clock });
    pro = await signedInClient(server, "owner@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("302 to the main destination with Cache-Control private, no-store, and one click", async () => {
    const link = await create({ url: "https://example.com/dest", alias: "plain" });
    const r = await go("/plain");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://example.com/dest");
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(await count(link.id)).toBe(1);
  });

  it("query strings never change the destination", async () => {
    await create({ url: "https://example.com/fixed?x=1", alias: "fixed-q" });
    for (const q of ["?url=https://evil.example/", "?x=2", "?redirect=javascript:alert(1)&to=//evil.example"]) {
      const r = await go(`/fixed-q${q}`);
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe("https://example.com/fixed?x=1");
    }
  });

  it("HEAD answers like GET and counts", async () => {
    const link = await create({ url: "https://example.com/head", alias: "head-link" });
    const r = await go("/head-link", {}, "HEAD");
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("https://example.com/head");
    expect((await go("/no-such-head", {}, "HEAD")).status).toBe(404);
    expect(await count(link.id)).toBe(1);
  });

  it("device destinations: iPhone/iPad to ios_url, Android to android_url, others to url", async () => {
    await create({ url: "https://example.com/web", ios_url: "https://apps.apple.com/app", android_url: "https://play.google.com/app", alias: "devices" });
    expect((await go("/devices", { "user-agent": IPHONE })).headers.get("location")).toBe("https://apps.apple.com/app");
    expect((await go("/devices", { "user-agent": IPHONE.replace("iPhone", "iPad") })).headers.get("location")).toBe("https://apps.apple.com/app");
    expect((await go("/devices", { "user-agent": ANDROID })).headers.get("location")).toBe("https://play.google.com/app");
    expect((await go("/devices", { "user-agent": DESKTOP })).headers.get("location")).toBe("https://example.com/web");
    await create({ url: "https://example.com/web-only", ios_url: "https://apps.apple.com/only", alias: "ios-only" });
    expect((await go("/ios-only", { "user-agent": ANDROID })).headers.get("location")).toBe("https://example.com/web-only");
  });

  it("404 for unknown, reserved and malformed aliases (any other host is the main host): HTML for browsers, JSON when preferred", async () => {
    const html = await go("/nope-nope", { accept: "text/html,application/xhtml+xml" });
    expect(html.status).toBe(404);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await html.text()).toContain("Link not found");
    const json = await go("/nope-nope", { accept: "application/json" });
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ status: "error", code: "not_found" });
    expect((await go("/ab")).status).toBe(404);
    expect((await go("/api")).status).toBe(404);
    await create({ url: "https://example.com/", alias: "host-bound" });
    // A host that is no custom domain of the service is the main host (a pending custom domain: test/api/main-host.test.ts).
    expect(await statusWithHost(`${server.url}/host-bound`, "other.example")).toBe(302);
    expect(await statusWithHost(`${server.url}/host-bound`, `${new URL(server.config.origin).hostname.toUpperCase()}:1234`)).toBe(302);
    expect((await go("/host-bound")).status).toBe(302);
  });

  it("410 once expired, even with a password (expiry comes first)", async () => {
    const at = new Date(clock.now() + 60_000).toISOString();
    await create({ url: "https://example.com/", alias: "expiring", expires_at: at });
    await create({ url: "https://example.com/", alias: "expiring-pw", expires_at: at, password: "secret" });
    expect((await go("/expiring")).status).toBe(302);
    expect((await go("/expiring-pw")).status).toBe(200);
    clock.advance(60_000);
    const r = await go("/expiring", { accept: "application/json" });
    expect(r.status).toBe(410);
    expect(await r.json()).toMatchObject({ status: "error", code: "expired" });
    expect((await go("/expiring-pw")).status).toBe(410);
    expect((await postPassword("expiring-pw", "secret")).status).toBe(410);
  });

  it("403 once the click limit is reached, before the device rule and the password", async () => {
    const link = await create({ url: "https://example.com/", ios_url: "https://apps.apple.com/x", alias: "limited", max_clicks: 2 });
    expect((await go("/limited", { "user-agent": IPHONE })).headers.get("location")).toBe("https://apps.apple.com/x");
    expect((await go("/limited")).status).toBe(302);
    const r = await go("/limited", { "user-agent": IPHONE });
    expect(r.status).toBe(403);
    expect(await r.text()).toContain("Click limit reached");
    expect((await go("/limited", { accept: "application/json" }).then((x) => x.json())).code).toBe("click_limit_reached");
    expect(await count(link.id)).toBe(2);

    await create({ url: "https://example.com/", alias: "limited-pw", max_clicks: 1, password: "pw" });
    expect((await go("/limited-pw")).status).toBe(200);
    expect((await postPassword("limited-pw", "pw")).status).toBe(302);
    expect((await go("/limited-pw")).status).toBe(403);
    expect((await postPassword("limited-pw", "pw")).status).toBe(403);
  });

  it("password: form (200), wrong -> 401 with the form, right -> 302, and the form is never a click", async () => {
    const link = await create({ url: "https://example.com/secret", alias: "locked", password: "open sesame" });
    const form = await go("/locked");
    expect(form.status).toBe(200);
    expect(form.headers.get("content-type")).toMatch(/^text\/html/);
    expect(form.headers.get("cache-control")).toBe("private, no-store");
    const html = await form.text();
    expect(html).toContain('name="password"');
    expect(html).toContain('method="post"');
    const wrong = await postPassword("locked", "nope");
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Wrong password");
    // A client that prefers JSON gets the contract's error body, not the form.
    const wrongJson = await postPassword("locked", "nope", { accept: "application/json" });
    expect(wrongJson.status).toBe(401);
    expect(wrongJson.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await wrongJson.json()).toEqual({ status: "error", code: "invalid_credentials", message: "Wrong password for this link" });
    const right = await postPassword("locked", "open sesame");
    expect(right.status).toBe(302);
    expect(right.headers.get("location")).toBe("https://example.com/secret");
    expect(await count(link.id)).toBe(1);
  });

  it("password throttle: 10 wrong answers per link and IP, then 429 with Retry-After (even for the right one)", async () => {
    await create({ url: "https://example.com/t", alias: "throttled", password: "right" });
    for (let i = 0; i < 10; i++) expect((await postPassword("throttled", `wrong-${i}`)).status).toBe(401);
    const r = await postPassword("throttled", "right");
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(15 * 60_000 + 1000);
    expect((await postPassword("throttled", "right")).status).toBe(302);
  });

  it("password form input: oversized, wrong type, unknown field", async () => {
    await create({ url: "https://example.com/", alias: "form-input", password: "right" });
    const big = await fetch(`${server.url}/form-input`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=" + "a".repeat(10_000),
    });
    expect(big.status).toBe(413);
    const extra = await fetch(`${server.url}/form-input`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "password=right&admin=1",
    });
    expect(extra.status).toBe(400);
    const json = await fetch(`${server.url}/form-input`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "right" }),
    });
    expect(json.status).toBe(302);
  });

  it("hostile aliases and destinations are escaped in HTML pages", async () => {
    const r = await go("/%3Cscript%3Ealert(1)%3C%2Fscript%3E", { accept: "text/html" });
    expect(r.status).toBe(404);
    const body = await r.text();
    expect(body).not.toContain("<script>");
    await create({ url: 'https://example.com/"><script>alert(1)</script>', alias: "xss-dest" });
    const loc = (await go("/xss-dest")).headers.get("location") ?? "";
    expect(loc).not.toContain("<");
    expect(loc).not.toContain('"');
  });

  it("a deleted link answers 404 at once, even after being cached", async () => {
    const link = await create({ url: "https://example.com/", alias: "doomed" });
    expect((await go("/doomed")).status).toBe(302);
    expect((await pro.delete(`/api/links/${link.id}`)).status).toBe(200);
    expect((await go("/doomed")).status).toBe(404);
  });

  it("a 404 seen just before creation does not hide the new link", async () => {
    expect((await go("/born-late")).status).toBe(404);
    await create({ url: "https://example.com/", alias: "born-late" });
    expect((await go("/born-late")).status).toBe(302);
  });

  it("an edit takes effect at once", async () => {
    const link = await create({ url: "https://example.com/old", alias: "edited" });
    expect((await go("/edited")).headers.get("location")).toBe("https://example.com/old");
    expect((await pro.patch(`/api/links/${link.id}`, { url: "https://example.com/new" })).status).toBe(200);
    expect((await go("/edited")).headers.get("location")).toBe("https://example.com/new");
  });
});
