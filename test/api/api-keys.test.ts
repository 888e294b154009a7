// API keys from the profile (GET/POST/DELETE /api/keys) and `snip key create`, on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { cliInProcess as cli } from "../helpers/cli-in-process.js";
import { sha256Hex } from "../../src/shared/ids.js";

const KEY_RE = /^snip_[A-Za-z0-9_-]{43}$/;

describe.each(ENGINES)("API keys on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("creates a key: the secret once, only its hash stored, listed without the secret", async () => {
    const c = await signedInClient(server, "keys-a@example.com", "business");
    const r = await c.post("/api/keys", { name: "  CI server  " });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe("success");
    expect(r.body.secret).toMatch(KEY_RE);
    expect(r.body.key).toEqual({
      id: expect.any(String),
      name: "CI server",
      prefix: r.body.secret.slice(0, 12),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      revoked_at: null,
      folder_ids: null,
      scopes: ["links:create"],
      expires_at: null,
    });
    expect(r.headers.get("cache-control")).toBe("no-store");
    const row = await server.ctx.storage.db.selectFrom("api_keys").selectAll().where("id", "=", r.body.key.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(sha256Hex(r.body.secret));
    expect(JSON.stringify(row)).not.toContain(r.body.secret);

    const list = await c.get("/api/keys");
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([r.body.key]);
    expect(list.text).not.toContain(r.body.secret);
  });

  it("lists newest first and revokes: revoked_at set, the key refused from the next request", async () => {
    const c = await signedInClient(server, "keys-b@example.com", "business");
    const k1 = (await c.post("/api/keys", { name: "one" })).body;
    const k2 = (await c.post("/api/keys", { name: "two" })).body;
    const names = (await c.get("/api/keys")).body.keys.map((k: { name: string }) => k.name);
    expect(names.sort()).toEqual(["one", "two"]);

    const ok = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${k1.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/before-revoke" }),
    });
    expect(ok.status).toBe(201);

    const del = await c.delete(`/api/keys/${k1.key.id}`);
    expect(del.status).toBe(200);
    expect(del.body.key.revoked_at).toEqual(expect.any(String));
    const again = await c.delete(`/api/keys/${k1.key.id}`);
    expect(again.status).toBe(200);
    expect(again.body.key.revoked_at).toBe(del.body.key.revoked_at);

    const refused = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${k1.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/after-revoke" }),
    });
    expect(refused.status).toBe(401);
    expect((await refused.json()).code).toBe("invalid_api_key");

    const list = (await c.get("/api/keys")).body.keys as Array<{ id: string; revoked_at: string | null; last_used_at: string | null }>;
    expect(list.find((k) => k.id === k1.key.id)?.revoked_at).toEqual(expect.any(String));
    expect(list.find((k) => k.id === k1.key.id)?.last_used_at).toEqual(expect.any(String));
    expect(list.find((k) => k.id === k2.key.id)?.revoked_at).toBeNull();
  });

  it("another user's key and unknown ids answer 404, and the key stays live", async () => {
    const owner = await signedInClient(server, "keys-owner@example.com", "business");
    const other = await signedInClient(server, "keys-other@example.com", "business");
    const k = (await owner.post("/api/keys", { name: "mine" })).body;
    const r = await other.delete(`/api/keys/${k.key.id}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: "error", code: "not_found" });
    expect((await other.delete("/api/keys/nope")).status).toBe(404);
    expect((await other.get("/api/keys")).body.keys).toEqual([]);
    expect((await owner.get("/api/keys")).body.keys[0].revoked_at).toBeNull();
  });

  it("validates the name: required, 1..100 characters after trimming, no control characters, no unknown fields", async () => {
    const c = await signedInClient(server, "keys-c@example.com");
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(101) }, { name: "a\u0007b" }, { name: "ok", scope: "all" }, { name: 5 }]) {
      const r = await c.post("/api/keys", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    expect((await c.post("/api/keys", { name: "x".repeat(100) })).status).toBe(201);
  });

  it("any plan may create keys; at most 25 live ones (403 limit_reached), revoking frees a place", async () => {
    const c = await signedInClient(server, "keys-cap@example.com", "free");
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await c.post("/api/keys", { name: `k${i}` });
      expect(r.status).toBe(201);
      ids.push(r.body.key.id);
    }
    const over = await c.post("/api/keys", { name: "k25" });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe("limit_reached");
    expect((await c.delete(`/api/keys/${ids[0]}`)).status).toBe(200);
    expect((await c.post("/api/keys", { name: "k25" })).status).toBe(201);
  });

  it("needs a session and the CSRF token; a suspended account may list and revoke but not create", async () => {
    const anon = await new ApiClient(server.url).init();
    expect((await anon.get("/api/keys")).body.code).toBe("unauthenticated");
    expect((await anon.post("/api/keys", { name: "x" })).status).toBe(401);

    const c = await signedInClient(server, "keys-d@example.com", "business");
    const noCsrf = await c.post("/api/keys", { name: "x" }, { "x-csrf-token": "wrong" });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe("csrf_failed");

    const k = (await c.post("/api/keys", { name: "before" })).body;
    await server.ctx.accounts.setStatus("keys-d@example.com", "suspended");
    expect((await c.post("/api/keys", { name: "after" })).body.code).toBe("account_inactive");
    expect((await c.get("/api/keys")).status).toBe(200);
    expect((await c.delete(`/api/keys/${k.key.id}`)).status).toBe(200);
  });

  it("a Bearer key never authenticates dashboard routes", async () => {
    const c = await signedInClient(server, "keys-bearer@example.com", "business");
    const { secret } = (await c.post("/api/keys", { name: "bearer" })).body;
    const h = { authorization: `Bearer ${secret}`, accept: "application/json" };
    for (const path of ["/api/links", "/api/profile", "/api/keys"]) {
      const r = await fetch(server.url + path, { headers: h });
      expect(r.status, path).toBe(401);
      expect((await r.json()).code).toBe("unauthenticated");
    }
    // A write with the key but without a session is refused before anything else (CSRF), and creates nothing.
    const w = await fetch(`${server.url}/api/links`, {
      method: "POST",
      headers: { ...h, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/x" }),
    });
    expect(w.status).toBe(403);
    expect((await w.json()).code).toBe("csrf_failed");
    // With a signed-out session, the key does not make the caller signed in either.
    const anon = await new ApiClient(server.url).init();
    const p = await anon.request("PATCH", "/api/profile", { name: "x" }, { authorization: `Bearer ${secret}` });
    expect(p.status).toBe(401);
    expect(p.body.code).toBe("unauthenticated");
  });

  it("snip key create EMAIL [--name] prints the secret alone; unknown user exits non-zero", async () => {
    await server.ctx.accounts.create({ email: "keys-cli@example.com", password: "correct horse 1", plan: "business", verified: true });
    const r = await cli(server, ["key", "create", "keys-cli@example.com", "--name", "deploy bot"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^snip_[A-Za-z0-9_-]{43}\n$/);
    const secret = r.out.trim();
    const row = await server.ctx.storage.db.selectFrom("api_keys").selectAll().where("secret_hash", "=", sha256Hex(secret)).executeTakeFirstOrThrow();
    expect(row.name).toBe("deploy bot");

    const created = await fetch(`${server.url}/api/external-create.php`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/from-cli-key" }),
    });
    expect(created.status).toBe(201);

    const dflt = await cli(server, ["key", "create", "KEYS-CLI@example.com"]);
    expect(dflt.code).toBe(0);
    expect(dflt.out).toMatch(KEY_RE_LINE);

    const unknown = await cli(server, ["key", "create", "nobody@example.com"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toBe("");
    expect(unknown.err).toContain("nobody@example.com");
  });

  it("snip key create --scopes --expires: the key's scopes and expiry; an unknown scope or a past time exits non-zero, storing nothing", async () => {
    await server.ctx.accounts.create({ email: "keys-cli-scopes@example.com", password: "correct horse 1", plan: "business", verified: true });
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const r = await cli(server, ["key", "create", "keys-cli-scopes@example.com", "--scopes", "export, links:read", "--expires", expires]);
    expect(r.code, r.err).toBe(0);
    const row = await server.ctx.storage.db.selectFrom("api_keys").selectAll().where("secret_hash", "=", sha256Hex(r.out.trim())).executeTakeFirstOrThrow();
    expect([row.scopes, Number(row.expires_at)]).toEqual(['["links:read","export"]', Date.parse(expires)]);
    const count = async () => (await server.ctx.storage.db.selectFrom("api_keys").select("id").execute()).length;
    const before = await count();
    for (const args of [
      ["--scopes", "links:delete"],
      ["--expires", "2020-01-01T00:00:00Z"],
    ]) {
      const bad = await cli(server, ["key", "create", "keys-cli-scopes@example.com", ...args]);
      expect(bad.code).not.toBe(0);
      expect(bad.out).toBe("");
      expect(bad.err).toMatch(args[0] === "--scopes" ? /unknown scope "links:delete"/ : /expires_at: must be in the future/);
    }
    expect(await count()).toBe(before);
  });
});

const KEY_RE_LINE = /^snip_[A-Za-z0-9_-]{43}\n$/;
