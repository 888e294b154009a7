// Link creation over HTTP: signed in/out, aliases (syntax, reserved, taken, races), destination checks,
// plan gating, the per-plan link limit and hostile input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

const visit = (server: TestServer, path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { redirect: "manual", headers });

describe.each(ENGINES)("link creation on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let free: ApiClient;
  let pro: ApiClient;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestServer({ engine, clock });
    free = await signedInClient(server, "free@example.com", "free");
    pro = await signedInClient(server, "pro@example.com", "pro");
  });
  afterAll(async () => server?.close());

  it("signed out: url and alias only, expires after exactly 5 minutes, no owner", async () => {
    const anon = await new ApiClient(server.url).init();
    const r = await anon.post("/api/links", { url: "https://example.com/page?a=1", alias: "anon-link" });
    expect(r.status).toBe(201);
    expect(r.body.link).toMatchObject({
      alias: "anon-link",
      url: "https://example.com/page?a=1",
      owner_id: null,
      domain: null,
      has_password: false,
      click_count: 0,
      short_url: `${server.config.origin}/anon-link`,
    });
    expect(Date.parse(r.body.link.expires_at) - Date.parse(r.body.link.created_at)).toBe(5 * 60_000);
    clock.advance(5 * 60_000 - 1);
    expect((await visit(server, "/anon-link")).status).toBe(302);
    clock.advance(1);
    expect((await visit(server, "/anon-link")).status).toBe(410);
  });

  it("signed out with any other option: 401 unauthenticated", async () => {
    const anon = await new ApiClient(server.url).init();
    for (const extra of [{ password: "x" }, { max_clicks: 3 }, { expires_at: "2099-01-01T00:00:00Z" }, { ios_url: "https://apple.com/" }]) {
      const r = await anon.post("/api/links", { url: "https://example.com/", ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(401);
      expect(r.body.code).toBe("unauthenticated");
    }
  });

  it("signed out still needs the CSRF token", async () => {
    const r = await fetch(`${server.url}/api/links`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/" }),
    });
    expect(r.status).toBe(403);
    expect((await r.json()).code).toBe("csrf_failed");
  });

  it("signed in: generated 7-character code, owned, no expiry, listed", async () => {
    const r = await free.post("/api/links", { url: "https://example.com/generated" });
    expect(r.status).toBe(201);
    expect(r.body.link.alias).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(r.body.link.expires_at).toBeNull();
    expect(r.body.link.owner_id).toEqual(expect.any(String));
    expect(r.body.link).not.toHaveProperty("password_hash");
    const list = await free.get("/api/links");
    expect(list.body.links.map((l: { id: string }) => l.id)).toContain(r.body.link.id);
  });

  it("IDN hosts are stored as punycode; the Location header is ASCII", async () => {
    const r = await free.post("/api/links", { url: "https://münchen.example/straße", alias: "idn-link" });
    expect(r.status).toBe(201);
    expect(r.body.link.url).toBe("https://xn--mnchen-3ya.example/stra%C3%9Fe");
    expect((await visit(server, "/idn-link")).headers.get("location")).toBe("https://xn--mnchen-3ya.example/stra%C3%9Fe");
  });

  it("alias syntax: 3-64 of letters, digits, - and _; reserved words refused case-insensitively", async () => {
    for (const alias of ["ab", "a".repeat(65), "has space", "dot.ted", "slash/x", "ümlaut", "<script>"]) {
      const r = await free.post("/api/links", { url: "https://example.com/", alias });
      expect(r.status, alias).toBe(400);
      expect(r.body.code).toBe("invalid_request");
      expect(r.body.details[0].field).toBe("alias");
    }
    for (const alias of ["api", "API", "Docs", "healthz", "assets", "app"]) {
      const r = await free.post("/api/links", { url: "https://example.com/", alias });
      expect(r.status, alias).toBe(400);
      expect(r.body.details[0]).toMatchObject({ field: "alias" });
    }
    const ok = await free.post("/api/links", { url: "https://example.com/", alias: "a-b_C" + "x".repeat(59) });
    expect(ok.status).toBe(201);
  });

  it("alias taken on the same domain: 409 alias_taken", async () => {
    expect((await free.post("/api/links", { url: "https://example.com/1", alias: "taken-one" })).status).toBe(201);
    const r = await pro.post("/api/links", { url: "https://example.com/2", alias: "taken-one" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("alias_taken");
  });

  it("alias race: 20 concurrent creators, exactly one 201 and nineteen 409", async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => new ApiClient(server.url).init()));
    const results = await Promise.all(clients.map((c, i) => c.post("/api/links", { url: `https://example.com/race/${i}`, alias: "race-alias" })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe("alias_taken");
  });

  it("bad destinations: 400 invalid_request naming the field", async () => {
    const bad = [
      "javascript:alert(1)",
      "data:text/html,<b>x</b>",
      "file:///etc/passwd",
      "/relative/path",
      "example.com/no-scheme",
      "http://",
      "https://exa mple.com/",
      "https://user:pass@example.com/",
      "https://localhost/",
      "ftp://example.com/file",
      `https://example.com/${"a".repeat(2048)}`,
      `${server.config.origin}/loop`,
      `http://127.0.0.1:9/${"x"}`.replace("127.0.0.1:9", new URL(server.config.origin).hostname),
      "",
    ];
    for (const url of bad) {
      const r = await free.post("/api/links", { url });
      expect(r.status, url).toBe(400);
      expect(r.body.code).toBe("invalid_request");
      expect(r.body.details?.[0]?.field, url).toBe("url");
    }
    for (const field of ["ios_url", "android_url"]) {
      const r = await free.post("/api/links", { url: "https://example.com/", [field]: "javascript:alert(1)" });
      expect(r.status).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
  });

  it("domain: only BASE_URL's host for now", async () => {
    const host = new URL(server.config.origin).hostname;
    expect((await free.post("/api/links", { url: "https://example.com/", domain: host })).status).toBe(201);
    const r = await free.post("/api/links", { url: "https://example.com/", domain: "evil.example" });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe("domain");
  });

  it("plan gating: expiration and click limits need Pro", async () => {
    for (const extra of [{ expires_at: new Date(clock.now() + 86_400_000).toISOString() }, { max_clicks: 10 }]) {
      const r = await free.post("/api/links", { url: "https://example.com/", ...extra });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: "plan_required", required_plan: "pro" });
      expect((await pro.post("/api/links", { url: "https://example.com/", ...extra })).status).toBe(201);
    }
    // Free users may set a password and device destinations.
    const r = await free.post("/api/links", { url: "https://example.com/", password: "pw", ios_url: "https://apps.apple.com/x" });
    expect(r.status).toBe(201);
    expect(r.body.link.has_password).toBe(true);
  });

  it("option checks: expires_at in the future, max_clicks 1..1e9, password 1..200", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ expires_at: new Date(clock.now() - 1000).toISOString() }, "expires_at"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ max_clicks: 0 }, "max_clicks"],
      [{ max_clicks: 1_000_000_001 }, "max_clicks"],
      [{ password: "" }, "password"],
      [{ password: "p".repeat(201) }, "password"],
    ];
    for (const [extra, field] of cases) {
      const r = await pro.post("/api/links", { url: "https://example.com/", ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
  });

  it("hostile input: unknown fields, wrong types, malformed and huge JSON", async () => {
    let r = await free.post("/api/links", { url: "https://example.com/", owner_id: "someone" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    r = await free.post("/api/links", { url: 42 });
    expect(r.status).toBe(400);
    r = await free.post("/api/links", { url: "https://example.com/", max_clicks: "5" });
    expect(r.status).toBe(400);
    r = await free.post("/api/links", "{not json", { "content-type": "application/json" });
    expect(r.status).toBe(400);
    r = await free.post("/api/links", JSON.stringify({ url: "https://example.com/" + "a".repeat(1100 * 1024) }), { "content-type": "application/json" });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("payload_too_large");
  });

  it("suspended accounts cannot create links", async () => {
    const c = await signedInClient(server, "suspended@example.com", "pro");
    await server.ctx.accounts.setStatus("suspended@example.com", "suspended");
    const r = await c.post("/api/links", { url: "https://example.com/" });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("account_inactive");
  });

  it("per-plan link limit: the 101st link of a free account is refused with limit_reached", async () => {
    const user = await server.ctx.accounts.create({ email: "full@example.com", password: "correct horse 1", plan: "free", verified: true });
    for (let i = 0; i < 100; i++) await server.ctx.links.create(user, { url: `https://example.com/${i}` });
    const c = new ApiClient(server.url);
    await c.login("full@example.com");
    const r = await c.post("/api/links", { url: "https://example.com/one-too-many" });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("limit_reached");
  });
});
