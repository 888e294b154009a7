// 404 bursts per client address (docs/operator.md, Throttles): past NOT_FOUND_PER_MINUTE 404 answers
// in a minute, the address gets 429 with Retry-After on every short link (found ones and the fast path
// included) until its minute ends; other addresses are not affected; 0 turns it off. Addresses come from
// X-Forwarded-For (TRUST_PROXY = loopback); the minute passes on a test clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { UA } from "../helpers/visit.js";
import { NotFoundThrottle } from "../../src/redirect/not-found-throttle.js";

const LIMIT = 5;

async function hit(base: string, path: string, ip: string, init: { method?: string; json?: boolean; body?: string } = {}) {
  const headers: Record<string, string> = { "user-agent": UA.windows, "x-forwarded-for": ip };
  if (init.json) headers.accept = "application/json";
  if (init.body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
  const res = await fetch(base + path, { method: init.method ?? "GET", headers, body: init.body, redirect: "manual" });
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    location: res.headers.get("location"),
    type: res.headers.get("content-type") ?? "",
    text: await res.text(),
  };
}

describe.each(ENGINES)("404 bursts on %s", (engine) => {
  let server: TestServer;
  // Twenty seconds into a minute: the window ends in 40 s.
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 20));
  let alias: string;
  let locked: string;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { NOT_FOUND_PER_MINUTE: String(LIMIT), TRUST_PROXY: "127.0.0.1" } });
    const owner = await signedInClient(server, "nf@example.com", "pro");
    alias = (await owner.post("/api/links", { url: "https://example.com/found", alias: "nf-found" })).body.link.alias;
    locked = (await owner.post("/api/links", { url: "https://example.com/locked", alias: "nf-locked", password: "secret" })).body.link.alias;
  });
  afterAll(async () => server?.close());

  it("gives 429 with Retry-After on every short link after more than NOT_FOUND_PER_MINUTE 404s, until the minute ends", async () => {
    const ip = "203.0.113.10";
    // Cached: served by the fast path before the burst.
    expect((await hit(server.url, `/${alias}`, ip)).status).toBe(302);
    expect(server.ctx.redirects.cache.peek("", alias)).toBeTruthy();
    for (let i = 0; i <= LIMIT; i++) expect((await hit(server.url, `/nf-missing-${i}`, ip)).status).toBe(404);
    expect(server.ctx.redirects.notFound?.active).toBe(true);

    const json = await hit(server.url, `/${alias}`, ip, { json: true });
    expect(json.status).toBe(429);
    expect(json.retryAfter).toBe("40");
    expect(JSON.parse(json.text)).toMatchObject({ status: "error", code: "rate_limited" });
    const page = await hit(server.url, `/${alias}`, ip);
    expect(page.status).toBe(429);
    expect(page.type).toContain("text/html");
    expect(page.text).toContain("Too many");
    expect((await hit(server.url, `/${alias}`, ip, { method: "HEAD" })).status).toBe(429);
    expect((await hit(server.url, "/nf-missing-x", ip)).status).toBe(429);
    expect((await hit(server.url, `/${locked}`, ip, { method: "POST", body: "password=secret" })).status).toBe(429);

    // Another address is not affected, on the fast path or off it.
    expect((await hit(server.url, `/${alias}`, "198.51.100.20")).location).toBe("https://example.com/found");
    expect((await hit(server.url, "/nf-missing-0", "198.51.100.20")).status).toBe(404);

    clock.advance(30_000);
    expect((await hit(server.url, `/${alias}`, ip)).retryAfter).toBe("10");
    // The next minute: free again, and the fast path asks nothing.
    clock.advance(10_000);
    expect((await hit(server.url, `/${alias}`, ip)).location).toBe("https://example.com/found");
    expect(server.ctx.redirects.notFound?.active).toBe(false);
    expect((await hit(server.url, "/nf-missing-0", ip)).status).toBe(404);
  });

  it("counts nothing but 404s: found links, any number of times, never throttle", async () => {
    const ip = "203.0.113.11";
    for (let i = 0; i < LIMIT * 3; i++) expect((await hit(server.url, `/${alias}`, ip)).status).toBe(302);
    for (let i = 0; i < LIMIT; i++) expect((await hit(server.url, `/nf-other-${i}`, ip)).status).toBe(404);
    expect((await hit(server.url, `/${alias}`, ip)).status).toBe(302);
  });
});

describe("NOT_FOUND_PER_MINUTE=0", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { NOT_FOUND_PER_MINUTE: "0" } });
  });
  afterAll(async () => server?.close());

  it("turns the throttle off", async () => {
    expect(server.ctx.redirects.notFound).toBeNull();
    for (let i = 0; i < 200; i++) expect((await hit(server.url, `/off-missing-${i}`, "ignored")).status).toBe(404);
  });
});

describe("NotFoundThrottle", () => {
  it("bounds the addresses it counts per window", () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const t = new NotFoundThrottle(1, clock, 3);
    for (const ip of ["a", "b", "c", "d"]) {
      t.notFound(ip);
      t.notFound(ip);
    }
    // "d" came after the map was full: not counted this window.
    expect(["a", "b", "c", "d"].map((ip) => t.retryAfter(ip))).toEqual([60, 60, 60, 0]);
    clock.advance(60_000);
    expect(t.retryAfter("a")).toBe(0);
    expect(t.active).toBe(false);
  });
});
