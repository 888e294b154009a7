// POST /api/external-create.php: every answer of docs/api.md, the check order, rate-limit headers, throttles, OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import pino from "pino";
import { REDACT_PATHS } from "../../src/ops/logging.js";
import { planLimits } from "../../src/accounts/plans.js";

const PATH = "/api/external-create.php";

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One call of the external API; body is JSON-encoded unless a string. */
async function ext(server: TestServer, key: string | null, body: unknown, opts: { headers?: Record<string, string>; query?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${server.url}${PATH}${opts.query ?? ""}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

function expectRateHeaders(a: Answer, remaining?: number): void {
  expect(a.headers.get("ratelimit-limit")).toBe("100");
  expect(a.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
  expect(a.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
  if (remaining !== undefined) expect(Number(a.headers.get("ratelimit-remaining"))).toBe(remaining);
}

function expectError(a: Answer, status: number, code: string): void {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(a.body).toMatchObject({ status: "error", code, message: expect.any(String) });
  expectRateHeaders(a);
}

describe.each(ENGINES)("external creation API on %s", (engine) => {
  let server: TestServer;
  let n = 0;
  /** A fresh signed-in account of the plan with one key. */
  async function account(plan: string): Promise<{ client: ApiClient; email: string; secret: string; id: string }> {
    const email = `ext-${plan}-${++n}@example.com`;
    const client = await signedInClient(server, email, plan);
    const r = await client.post("/api/keys", { name: "test" });
    return { client, email, secret: r.body.secret, id: r.body.key.id };
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("creates a link owned by the key's account: 201 {status, short_url, link} with rate headers", async () => {
    const a = await account("business");
    const r = await ext(server, a.secret, { url: "https://example.com/docs?x=1", alias: "ext-docs" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.status).toBe("success");
    expect(r.body.short_url).toBe(`${server.config.origin}/ext-docs`);
    expect(r.body.link).toMatchObject({ alias: "ext-docs", url: "https://example.com/docs?x=1", short_url: r.body.short_url, expires_at: null });
    const me = (await a.client.get("/api/profile")).body.user;
    expect(r.body.link.owner_id).toBe(me.id);
    expectRateHeaders(r, 99);
    expect(Number(r.headers.get("ratelimit-reset"))).toBe(3600);
    expect(r.headers.get("retry-after")).toBeNull();
    const listed = await a.client.get("/api/links");
    expect(listed.body.links.map((l: { alias: string }) => l.alias)).toContain("ext-docs");

    const gen = await ext(server, a.secret, { url: "https://example.com/generated" });
    expect(gen.status).toBe(201);
    expect(gen.body.link.alias).toMatch(/^[A-Za-z0-9]{7,}$/);
    expectRateHeaders(gen, 98);
    // Enterprise has the API too.
    const e = await account("enterprise");
    expect((await ext(server, e.secret, { url: "https://example.com/ent" })).status).toBe(201);
  });

  it("401 invalid_api_key: missing, not Bearer, malformed, unknown; with WWW-Authenticate and rate headers", async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ["missing", {}],
      ["basic", { authorization: "Basic dXNlcjpwYXNz" }],
      ["empty bearer", { authorization: "Bearer " }],
      ["malformed", { authorization: "Bearer snip_short" }],
      ["two tokens", { authorization: `Bearer snip_${"a".repeat(43)} extra` }],
      ["unknown", { authorization: `Bearer snip_${"a".repeat(43)}` }],
    ];
    for (const [name, headers] of cases) {
      const r = await ext(server, null, { url: "https://example.com/" }, { headers });
      expect(r.status, name).toBe(401);
      expectError(r, 401, "invalid_api_key");
      expectRateHeaders(r, 100);
      expect(r.headers.get("www-authenticate"), name).toMatch(/^Bearer /);
    }
  });

  it("a bad key with a bad body answers 401, not 400 (the key is checked first)", async () => {
    expectError(await ext(server, `snip_${"b".repeat(43)}`, "{not json"), 401, "invalid_api_key");
    expectError(await ext(server, null, { nope: 1 }), 401, "invalid_api_key");
    expectError(await ext(server, "bad", "x=1", { headers: { "content-type": "application/x-www-form-urlencoded" } }), 401, "invalid_api_key");
  });

  it("403 account_inactive for a suspended account, before the plan check", async () => {
    const a = await account("business");
    await server.ctx.accounts.setStatus(a.email, "suspended");
    expectError(await ext(server, a.secret, { url: "https://example.com/" }), 403, "account_inactive");
    const free = await account("free");
    await server.ctx.accounts.setStatus(free.email, "suspended");
    expectError(await ext(server, free.secret, { url: "https://example.com/" }), 403, "account_inactive");
    await server.ctx.accounts.setStatus(a.email, "active");
    expect((await ext(server, a.secret, { url: "https://example.com/" })).status).toBe(201);
  });

  it("403 plan_required for free and Pro accounts (required_plan business), also with a bad body", async () => {
    for (const plan of ["free", "pro"]) {
      const a = await account(plan);
      const r = await ext(server, a.secret, { url: "https://example.com/" });
      expectError(r, 403, "plan_required");
      expect(r.body.required_plan).toBe("business");
      expectError(await ext(server, a.secret, "{bad"), 403, "plan_required");
    }
  });

  it("a key in the query string is refused with 400 pointing to the Authorization header", async () => {
    const a = await account("business");
    for (const query of [`?key=${a.secret}`, `?api_key=${a.secret}`, `?token=x`, `?access_token=x`, `?ref=${a.secret}`, `?Key=x`]) {
      const r = await ext(server, null, { url: "https://example.com/" }, { query });
      expectError(r, 400, "invalid_request");
      expect(r.body.message).toMatch(/Authorization/);
      expect(JSON.stringify(r.body)).not.toContain(a.secret);
    }
    // Even together with a valid header: nothing is created.
    expectError(await ext(server, a.secret, { url: "https://example.com/" }, { query: `?key=${a.secret}` }), 400, "invalid_request");
    const links = (await a.client.get("/api/links")).body.links;
    expect(links).toEqual([]);
  });

  it("400 invalid_request: bad JSON, wrong content type, unknown field, missing or bad url, bad alias", async () => {
    const a = await account("business");
    const bad: Array<[string, unknown, Record<string, string>?]> = [
      ["bad json", "{url:"],
      ["empty body", ""],
      ["array", [1]],
      ["text/plain", JSON.stringify({ url: "https://example.com/" }), { "content-type": "text/plain" }],
      ["form", "url=https%3A%2F%2Fexample.com", { "content-type": "application/x-www-form-urlencoded" }],
      ["unknown field", { url: "https://example.com/", expires_at: "2030-01-01T00:00:00Z" }],
      ["missing url", { alias: "abc1234" }],
      ["url type", { url: 5 }],
      ["javascript url", { url: "javascript:alert(1)" }],
      ["relative url", { url: "/just/a/path" }],
      ["bad alias", { url: "https://example.com/", alias: "no spaces allowed" }],
      ["reserved alias", { url: "https://example.com/", alias: "api" }],
    ];
    for (const [name, body, headers] of bad) {
      const r = await ext(server, a.secret, body, { headers });
      expect(r.status, name).toBe(400);
      expectError(r, 400, "invalid_request");
    }
    // Failures never use up creations.
    const ok = await ext(server, a.secret, { url: "https://example.com/after-failures" });
    expect(ok.status).toBe(201);
    expectRateHeaders(ok, 99);
  });

  it("409 alias_taken, and the failed creation gives its slot back", async () => {
    const a = await account("business");
    expect((await ext(server, a.secret, { url: "https://example.com/1", alias: "ext-taken" })).status).toBe(201);
    const r = await ext(server, a.secret, { url: "https://example.com/2", alias: "ext-taken" });
    expectError(r, 409, "alias_taken");
    expectRateHeaders(r, 99);
    const b = await account("business");
    expectError(await ext(server, b.secret, { url: "https://example.com/3", alias: "ext-taken" }), 409, "alias_taken");
  });

  it("403 limit_reached when the account holds its plan's maximum of links", async () => {
    const a = await account("business");
    const user = (await a.client.get("/api/profile")).body.user;
    // Fill the account up to the Business maximum directly in the database.
    const max = planLimits("business").maxLinks;
    const now = Date.now();
    const db = server.ctx.storage.db;
    for (let i = 0; i < max; i += 5000) {
      const rows = [];
      for (let j = i; j < Math.min(max, i + 5000); j++) {
        rows.push({
          id: `fill${n}x${j}`,
          domain: "",
          alias: `fill${n}x${j}`,
          url: "https://example.com/",
          ios_url: null,
          android_url: null,
          expires_at: null,
          max_clicks: null,
          password_hash: null,
          owner_id: user.id,
          created_at: now,
          updated_at: now,
        });
      }
      for (let k = 0; k < rows.length; k += 500)
        await db
          .insertInto("links")
          .values(rows.slice(k, k + 500))
          .execute();
    }
    const r = await ext(server, a.secret, { url: "https://example.com/one-too-many" });
    expectError(r, 403, "limit_reached");
    expectRateHeaders(r, 100);
  });

  it("429 rate_limited after 100 creations in the hour, with Retry-After and Remaining 0", async () => {
    const a = await account("business");
    for (let i = 0; i < 100; i++) {
      const r = await ext(server, a.secret, { url: `https://example.com/seq/${i}` });
      expect(r.status).toBe(201);
      expectRateHeaders(r, 99 - i);
    }
    const r = await ext(server, a.secret, { url: "https://example.com/seq/100" });
    expectError(r, 429, "rate_limited");
    expectRateHeaders(r, 0);
    const retry = Number(r.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(3500);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(Number(r.headers.get("ratelimit-reset"))).toBe(retry);
    // The limit comes before body validation.
    expectError(await ext(server, a.secret, "{bad"), 429, "rate_limited");
    // Another key of the same account has its own quota.
    const other = (await a.client.post("/api/keys", { name: "second" })).body.secret;
    expect((await ext(server, other, { url: "https://example.com/other-key" })).status).toBe(201);
  });

  it("throttles a key's stream of failures (300 per hour)", async () => {
    const a = await account("business");
    for (let i = 0; i < 299; i++) await server.ctx.apiKeys.abuse.recordKeyFailure(a.id);
    expectError(await ext(server, a.secret, { url: "not a url" }), 400, "invalid_request");
    const limited = await ext(server, a.secret, { url: "https://example.com/fine" });
    expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // The failure throttle is not the creation window: nothing was created, so all 100 are left.
    expectRateHeaders(limited, 100);
    expect(limited.headers.get("ratelimit-reset")).toBe("0");
  });

  it("RateLimit-* headers describe the key's creation window on every answer, whatever refuses the request", async () => {
    const a = await account("business");
    for (let i = 0; i < 9; i++) expect((await ext(server, a.secret, { url: `https://example.com/w/${i}` })).status).toBe(201);
    const expectWindow = (r: Answer) => {
      expectRateHeaders(r, 91);
      const reset = Number(r.headers.get("ratelimit-reset"));
      expect(reset).toBeGreaterThan(3590);
      expect(reset).toBeLessThanOrEqual(3600);
    };
    // A refused body, an alias taken: the window as it is (the failed creation gave its slot back).
    expectWindow(await ext(server, a.secret, { url: "https://example.com/x", zzz: 1 }));
    expectWindow(await ext(server, a.secret, { url: "not a url" }));
    // Blocked by the failure throttle: 429 with Retry-After, the window still holds 91 creations.
    for (let i = 0; i < 300; i++) await server.ctx.apiKeys.abuse.recordKeyFailure(a.id);
    const blocked = await ext(server, a.secret, { url: "https://example.com/fine" });
    expectError(blocked, 429, "rate_limited");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expectWindow(blocked);
    // Suspended account: 403 account_inactive, the same window.
    const b = await account("business");
    for (let i = 0; i < 9; i++) expect((await ext(server, b.secret, { url: `https://example.com/v/${i}` })).status).toBe(201);
    await server.ctx.accounts.setStatus(b.email, "suspended");
    const inactive = await ext(server, b.secret, { url: "https://example.com/after-suspension" });
    expectError(inactive, 403, "account_inactive");
    expectWindow(inactive);
    // Plan without the API any more: 403 plan_required, the same window.
    await server.ctx.accounts.setStatus(b.email, "active");
    await server.ctx.accounts.setPlan(b.email, "pro");
    const downgraded = await ext(server, b.secret, { url: "https://example.com/after-downgrade" });
    expectError(downgraded, 403, "plan_required");
    expectWindow(downgraded);
  });

  it("throttles an address sending invalid keys (60 per 10 minutes); valid keys from it still work", async () => {
    // A server of its own: the other tests' invalid keys came from the same address.
    const own = await startTestServer({ engine });
    try {
      for (let i = 0; i < 59; i++) await own.ctx.apiKeys.abuse.recordBadKey("127.0.0.1");
      expectError(await ext(own, `snip_${"c".repeat(43)}`, { url: "https://example.com/" }), 401, "invalid_api_key");
      const blocked = await ext(own, `snip_${"d".repeat(43)}`, { url: "https://example.com/" });
      expectError(blocked, 429, "rate_limited");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expectError(await ext(own, null, { url: "https://example.com/" }), 429, "rate_limited");
      const c = await signedInClient(own, "ip-throttle@example.com", "business");
      const { secret } = (await c.post("/api/keys", { name: "ok" })).body;
      expect((await ext(own, secret, { url: "https://example.com/valid-from-throttled-ip" })).status).toBe(201);
    } finally {
      await own.close();
    }
  });

  it("is, with the other key routes, a state-changing /api route without CSRF, and needs no session cookie", () => {
    const open = server.app.routeList.filter((r) => r.url.startsWith("/api/") && !r.csrf && ["POST", "PUT", "PATCH", "DELETE"].includes(r.method));
    // Every one of them takes a key (its scopes declared): the key is the credential (key-scopes-routes.test.ts);
    // but Stripe's webhook, whose credential is the signature over its body (docs/conversions.md, Stripe), and SAML's
    // assertion consumer, whose credential is the identity provider's signature (docs/sso.md, SAML).
    const stripe = "POST /api/integrations/stripe/webhook/:token";
    const acs = "POST /api/sso/saml/:connection/acs";
    expect(open.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        `POST ${PATH}`,
        "DELETE /api/external/links/:id",
        "PATCH /api/external/links/:id",
        "POST /api/track/lead",
        "POST /api/track/sale",
        "POST /api/track/refund",
        "DELETE /api/customers/:external_id",
        "POST /api/deeplinks/open",
        "POST /api/external/shares",
        "DELETE /api/external/shares/:id",
        "POST /api/external/bio-pages",
        "PATCH /api/external/bio-pages/:id",
        "DELETE /api/external/bio-pages/:id",
        stripe,
        acs,
      ].sort(),
    );
    expect(
      open
        .filter((r) => !r.keyScopes)
        .map((r) => `${r.method} ${r.url}`)
        .sort(),
    ).toEqual([stripe, acs].sort());
  });

  it("is described in /api/openapi.json with its body schema and bearer security", async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
    const op = doc.paths[PATH].post;
    expect(op.security).toEqual([{ bearer: [] }]);
    const schema = op.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["url"]);
    expect(Object.keys(schema.properties).sort()).toEqual([
      "alias",
      "app_android_package",
      "app_ios_store_id",
      "app_path",
      "crawlable",
      "expired_url",
      "folder_id",
      "note",
      "open_outside",
      "preview",
      "redirect_status",
      "rules",
      "split",
      "split_ends_at",
      "split_goal",
      "split_min_visits",
      "starts_at",
      "tags",
      "title",
      "track_conversions",
      "url",
    ]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["201", "401", "403", "409", "429"]));
    expect(doc.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
  });

  it("never writes the key to the logs", async () => {
    const lines: string[] = [];
    const log = pino({ level: "trace", redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, { write: (line: string) => void lines.push(line) });
    const s2 = await startTestServer({ engine, dataDir: server.dataDir, databaseUrl: server.databaseUrl, log });
    try {
      const a = await account("business");
      await ext(s2, a.secret, { url: "https://example.com/logged" });
      await ext(s2, a.secret, "{bad");
      await ext(s2, null, { url: "https://example.com/" }, { query: `?key=${a.secret}` });
      const secretPart = a.secret.slice(5);
      expect(lines.length).toBeGreaterThan(0); // the logger is wired (start-up lines at least)
      expect(lines.join("\n")).not.toContain(secretPart);
    } finally {
      await s2.stop();
    }
  });
});
