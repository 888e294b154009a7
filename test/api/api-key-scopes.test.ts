// Scoped API keys (docs/api.md, API keys) on every engine: scopes and expiry chosen at creation and shown in the
// key view with last_used_at; malformed, unknown and duplicate scopes and a past expiry refused (400
// invalid_request naming the field); an expired key answers 401 like an unknown one; last_used_at written at
// most once a minute; a key never grants what the plan does not; creation and revocation in the audit log;
// the key routes do what their dashboard twins do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(ENGINES)("scoped API keys on %s", (engine) => {
  let server: TestServer;
  let c: ApiClient;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    c = await signedInClient(server, "scoped@example.com", "business");
  });
  afterAll(async () => server?.close());

  const db = () => server.ctx.storage.db;
  const keyCount = async () => (await db().selectFrom("api_keys").select("id").execute()).length;
  async function withKey(secret: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  it("creates a key with its scopes (in the contract's order) and expiry, shown in the key view", async () => {
    const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const r = await c.post("/api/keys", { name: "reporting", scopes: ["stats:read", "links:read"], expires_at: expires });
    expect(r.status, r.text).toBe(201);
    expect(r.body.key).toEqual({
      id: expect.any(String),
      name: "reporting",
      prefix: r.body.secret.slice(0, 12),
      scopes: ["links:read", "stats:read"],
      created_at: expect.stringMatching(ISO),
      expires_at: expires,
      last_used_at: null,
      revoked_at: null,
      folder_ids: null,
    });
    const listed = (await c.get("/api/keys")).body.keys.find((k: { id: string }) => k.id === r.body.key.id);
    expect(listed).toEqual(r.body.key);
  });

  it("gives a key created without scopes the default, links:create, and no expiry", async () => {
    const r = await c.post("/api/keys", { name: "plain" });
    expect(r.status).toBe(201);
    expect(r.body.key.scopes).toEqual(["links:create"]);
    expect(r.body.key.expires_at).toBeNull();
    expect((await withKey(r.body.secret, "POST", "/api/external-create.php", { url: "https://example.com/default-scope" })).status).toBe(201);
    const read = await withKey(r.body.secret, "GET", "/api/external/links");
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ status: "error", code: "insufficient_scope", message: expect.stringContaining("links:read"), required_scopes: ["links:read"] });
  });

  it.each([
    ["a string for scopes", { scopes: "links:read" }, "scopes"],
    ["a number in scopes", { scopes: [1] }, "scopes.0"],
    ["an object for scopes", { scopes: { "links:read": true } }, "scopes"],
    ["no scope at all", { scopes: [] }, "scopes"],
    ["an unknown scope", { scopes: ["links:read", "links:delete"] }, "scopes"],
    ["a scope in capitals", { scopes: ["LINKS:READ"] }, "scopes"],
    ["a duplicate scope", { scopes: ["links:read", "export", "links:read"] }, "scopes"],
    ["too many scopes", { scopes: Array.from({ length: 21 }, () => "export") }, "scopes"],
    ["an overlong scope", { scopes: ["x".repeat(51)] }, "scopes.0"],
    ["an expiry in the past", { expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
    ["an expiry of now-ish", { expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
    ["an expiry that is no time", { expires_at: "next tuesday" }, "expires_at"],
    ["an expiry as a number", { expires_at: 1893456000000 }, "expires_at"],
    ["an expiry past ten years", { expires_at: "2999-01-01T00:00:00Z" }, "expires_at"],
  ])("refuses %s: 400 invalid_request naming the field, nothing stored", async (_what, extra, field) => {
    const before = await keyCount();
    const r = await c.post("/api/keys", { name: `bad ${++n}`, ...extra });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe("invalid_request");
    expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await keyCount()).toBe(before);
  });

  it("names the unknown and the duplicate scope in the message", async () => {
    expect((await c.post("/api/keys", { name: "u", scopes: ["links:delete"] })).body.details).toEqual([
      {
        field: "scopes",
        message:
          'unknown scope "links:delete"; known: links:create, links:read, links:write, stats:read, export, conversions:write, deeplinks:open, shares:read, shares:write, bio_pages:read, bio_pages:write',
      },
    ]);
    expect((await c.post("/api/keys", { name: "d", scopes: ["export", "export"] })).body.details).toEqual([
      { field: "scopes", message: "export is listed twice" },
    ]);
  });

  it("refuses an expired key with 401 invalid_api_key, like an unknown one, on every key route; the view still shows it", async () => {
    const r = await c.post("/api/keys", {
      name: "short-lived",
      scopes: ["links:create", "links:read"],
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await withKey(r.body.secret, "GET", "/api/external/links")).status).toBe(200);
    const past = Date.now() - 1000;
    await db().updateTable("api_keys").set({ expires_at: past }).where("id", "=", r.body.key.id).execute();
    for (const [method, path, body] of [
      ["GET", "/api/external/links", undefined],
      ["POST", "/api/external-create.php", { url: "https://example.com/late" }],
    ] as const) {
      const a = await withKey(r.body.secret, method, path, body);
      expect(a.status).toBe(401);
      expect(a.body).toEqual({ status: "error", code: "invalid_api_key", message: "The API key has expired" });
      expect(a.headers.get("www-authenticate")).toBe('Bearer realm="snip", error="invalid_token"');
    }
    const unknown = await withKey(`snip_${"A".repeat(43)}`, "GET", "/api/external/links");
    expect([unknown.status, unknown.body.code]).toEqual([401, "invalid_api_key"]);
    const listed = (await c.get("/api/keys")).body.keys.find((k: { id: string }) => k.id === r.body.key.id);
    expect(listed.expires_at).toBe(new Date(past).toISOString());
  });

  it("shows last_used_at, written at most once a minute per key", async () => {
    const r = await c.post("/api/keys", { name: "used", scopes: ["links:read"] });
    const id = r.body.key.id as string;
    const lastUsed = async () => (await c.get("/api/keys")).body.keys.find((k: { id: string }) => k.id === id).last_used_at as string | null;
    expect(await lastUsed()).toBeNull();
    const t0 = Date.now();
    expect((await withKey(r.body.secret, "GET", "/api/external/links")).status).toBe(200);
    const first = await lastUsed();
    expect(first).toMatch(ISO);
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(t0 - 5);
    // Within the minute: no write.
    const recent = Date.now() - 30_000;
    await db().updateTable("api_keys").set({ last_used_at: recent }).where("id", "=", id).execute();
    expect((await withKey(r.body.secret, "GET", "/api/external/links")).status).toBe(200);
    expect(await lastUsed()).toBe(new Date(recent).toISOString());
    // Past the minute: written again.
    const old = Date.now() - 61_000;
    await db().updateTable("api_keys").set({ last_used_at: old }).where("id", "=", id).execute();
    const t1 = Date.now();
    expect((await withKey(r.body.secret, "GET", "/api/external/links")).status).toBe(200);
    expect(Date.parse((await lastUsed())!)).toBeGreaterThanOrEqual(t1 - 5);
  });

  it("never grants what the plan does not: a Pro account's key with every scope gets 403 plan_required", async () => {
    const pro = await signedInClient(server, "scoped-pro@example.com", "pro");
    const link = await createLink(pro, { url: "https://example.com/pro", alias: "scoped-pro-link" });
    const r = await pro.post("/api/keys", { name: "all", scopes: ["links:create", "links:read", "links:write", "stats:read", "export"] });
    expect(r.status).toBe(201);
    for (const [method, path] of [
      ["GET", "/api/external/links"],
      ["GET", `/api/external/links/${link.id}/stats`],
      ["DELETE", `/api/external/links/${link.id}`],
      ["GET", "/api/external-export"],
    ]) {
      const a = await withKey(r.body.secret, method!, path!);
      expect([a.status, a.body.code, a.body.required_plan], `${method} ${path}`).toEqual([403, "plan_required", "business"]);
    }
    expect((await pro.get(`/api/links/${link.id}`)).status).toBe(200);
  });

  it("reads, edits and deletes links and reads statistics as the dashboard does", async () => {
    const r = await c.post("/api/keys", { name: "rw", scopes: ["links:read", "links:write", "stats:read"] });
    const link = await createLink(c, { url: "https://example.com/rw", alias: "scoped-rw" });
    const got = await withKey(r.body.secret, "GET", `/api/external/links/${link.id}`);
    expect([got.status, got.body.link.alias, got.body.link.url]).toEqual([200, "scoped-rw", "https://example.com/rw"]);
    expect(got.headers.get("cache-control")).toBe("no-store");
    const listed = await withKey(r.body.secret, "GET", "/api/external/links?q=scoped-rw");
    expect(listed.body.links.map((l: { alias: string }) => l.alias)).toEqual(["scoped-rw"]);
    const edited = await withKey(r.body.secret, "PATCH", `/api/external/links/${link.id}`, { url: "https://example.com/rw2" });
    expect([edited.status, edited.body.link.url]).toEqual([200, "https://example.com/rw2"]);
    expect((await c.get(`/api/links/${link.id}`)).body.link.url).toBe("https://example.com/rw2");
    const stats = await withKey(r.body.secret, "GET", `/api/external/links/${link.id}/stats`);
    expect([stats.status, stats.body.total_clicks]).toEqual([200, 0]);
    // A dashboard-only option of the list is not there: a key reads its own account.
    expect((await withKey(r.body.secret, "GET", "/api/external/links?owner=x")).status).toBe(400);
    expect((await withKey(r.body.secret, "DELETE", `/api/external/links/${link.id}`)).status).toBe(200);
    expect((await c.get(`/api/links/${link.id}`)).status).toBe(404);
  });

  it("writes a key's creation (with its scopes) and revocation to the audit log, once", async () => {
    const r = await c.post("/api/keys", { name: "audited", scopes: ["export", "links:read"] });
    const id = r.body.key.id as string;
    expect((await c.delete(`/api/keys/${id}`)).status).toBe(200);
    expect((await c.delete(`/api/keys/${id}`)).status).toBe(200);
    const rows = await db().selectFrom("admin_audit").selectAll().where("target_id", "=", id).orderBy("id").execute();
    const user = await server.ctx.accounts.requireByEmail("scoped@example.com");
    const state = { name: "audited", prefix: r.body.key.prefix, scopes: ["links:read", "export"], expires_at: null };
    expect(
      rows.map((x) => ({ action: x.action, actor_id: x.actor_id, actor_email: x.actor_email, target_type: x.target_type, before: x.before, after: x.after })),
    ).toEqual([
      { action: "api_key.create", actor_id: user.id, actor_email: "scoped@example.com", target_type: "api_key", before: null, after: JSON.stringify(state) },
      { action: "api_key.revoke", actor_id: user.id, actor_email: "scoped@example.com", target_type: "api_key", before: JSON.stringify(state), after: null },
    ]);
    expect(rows[0]!.summary).toBe(`scoped@example.com: created API key ${r.body.key.prefix} (links:read, export)`);
  });
});
