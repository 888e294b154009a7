// Hostile input answers inside the contract: NUL, control characters and lone
// surrogates refused in one place on both engines, bad URLs and the static server's refusals as the contract's
// error body, and every route refusing unknown fields, wrong body types and bodies it does not take.
import { API_KEY_SCOPES } from "../../src/contract/api-keys.js";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Value } from "typebox/value";
import type { TSchema } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { concretePath, contractViolation, expectContract, rowCounts, routesOf } from "../helpers/routes.js";
import { scimTeam } from "../helpers/scim.js";
import { STATE_CHANGING } from "../../src/http/auth.js";

/** A raw HTTP/1.1 exchange: what Node's parser refuses never reaches fetch's side of things. */
function rawRequest(server: TestServer, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(new URL(server.url).port), "127.0.0.1", () => sock.end(request));
    let data = "";
    sock.on("data", (b) => (data += b.toString("latin1")));
    sock.on("close", () => resolve(data));
    sock.on("error", reject);
  });
}

describe.each(ENGINES)("hostile input on %s", (engine) => {
  let server: TestServer;
  let webDir: string;
  let a: ApiClient;
  let anon: ApiClient;
  let key: string;
  let alias: string;
  const logLines: Array<{ level: number; msg?: string }> = [];

  beforeAll(async () => {
    // A dashboard build of our own, so the static file server is there whatever was built.
    webDir = mkdtempSync(join(tmpdir(), "snip-web-"));
    mkdirSync(join(webDir, "assets"));
    writeFileSync(join(webDir, "index.html"), "<!doctype html><title>snip</title>");
    writeFileSync(join(webDir, "assets", "app-1.js"), "console.log(1);");
    writeFileSync(join(webDir, "secret.txt"), "outside assets");
    const log = pino({ level: "info" }, { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg?: string }) });
    server = await startTestServer({ engine, log, env: { WEB_DIR: webDir } });
    a = await signedInClient(server, "hostile-a@example.com", "business");
    // An operator, so that the /api/admin/ routes (which refuse anyone else before reading a body) are walked too.
    await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", "hostile-a@example.com").execute();
    key = (await a.post("/api/keys", { name: "k", scopes: [...API_KEY_SCOPES] })).body.secret;
    alias = (await createLink(a, { url: "https://example.com/hostile", alias: "hostile-one" })).alias;
    anon = await new ApiClient(server.url).init();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  const errorsLogged = () => logLines.filter((l) => l.level >= 50);

  describe("control characters and lone surrogates (defect 3)", () => {
    it("sign-up, sign-in and password reset with a NUL in the email: 400 invalid_request, nothing stored", async () => {
      const before = await rowCounts(server);
      for (const [path, body] of [
        ["/api/auth/signup", { email: "a\u0000@x.test", password: "correct horse 1" }],
        ["/api/auth/login", { email: "a\u0000@x.test", password: "correct horse 1" }],
        ["/api/auth/password-reset", { email: "a\u0000@x.test" }],
      ] as const) {
        const r = await anon.post(path, body);
        expectContract(r, path);
        expect(r.status, r.text).toBe(400);
        expect(r.body.code).toBe("invalid_request");
        expect(r.body.details).toEqual([{ field: "body.email", message: "contains a control character or an unpaired surrogate" }]);
      }
      expect(await rowCounts(server)).toEqual(before);
      expect(errorsLogged()).toEqual([]);
    });

    it("querystrings and path parameters with NUL or another control character: 400 invalid_request", async () => {
      for (const path of [
        "/api/links?q=%00",
        "/api/links?q=a%0Ab",
        "/api/links?q=%7F",
        "/api/links?q=%C2%85",
        "/api/links/%00",
        "/api/links/abc%00/stats",
        "/api/links/abc%01/stats.csv",
        `/api/qr/${alias}?domain=%00`,
        "/api/qr/ab%00c",
        "/ab%00c",
      ]) {
        for (const client of [a, anon]) {
          const r = await client.get(path);
          expectContract(r, path);
          expect(r.status, `${path}: ${r.text}`).toBe(400);
          expect(r.body.code).toBe("invalid_request");
        }
      }
      // The same addresses without the control character still work.
      expect((await a.get("/api/links?q=hostile")).body.links.map((l: { alias: string }) => l.alias)).toEqual([alias]);
      expect((await a.get(`/api/qr/${alias}`)).status).toBe(200);
      expect(errorsLogged()).toEqual([]);
    });

    it("lone surrogates and control characters in any body field or key are refused; surrogate pairs, LF and CR are text", async () => {
      const before = await rowCounts(server);
      for (const raw of [
        '{"name":"\\ud800"}',
        '{"name":"x\\udc00"}',
        '{"name":"\\udc00\\ud800"}',
        '{"name":"a\\u0007b"}',
        '{"name":"\\u0085"}',
        '{"na\\u0000me":"x"}',
      ]) {
        const r = await a.request("PATCH", "/api/profile", raw, { "content-type": "application/json" });
        expectContract(r, raw);
        expect(r.status, `${raw}: ${r.text}`).toBe(400);
        expect(r.body.code).toBe("invalid_request");
      }
      const nested = await a.post("/api/links", { url: "https://example.com/", alias: null, zz: [{ "\u0000": 1 }] });
      expect(nested.status).toBe(400);
      expect(await rowCounts(server)).toEqual(before);
      expect((await a.get("/api/profile")).body.user.name).toBe("");
      const ok = await a.patch("/api/profile", { name: "Pair 😀" });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.user.name).toBe("Pair 😀");
      const bulk = await a.post("/api/links/bulk", { urls: "https://example.com/l1\r\nhttps://example.com/l2\n" });
      expect(bulk.status, bulk.text).toBe(200);
      expect(bulk.body.results.map((x: { status: string }) => x.status)).toEqual(["created", "created"]);
    });

    it("a header Node refuses (a NUL byte) gets the contract's 400 with the security headers", async () => {
      const answer = await rawRequest(server, `GET /${alias} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a\u0000b\r\n\r\n`);
      const [head, body] = answer.split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      expect(head).toMatch(/\r\nx-frame-options: DENY\r\n/i);
      expect(JSON.parse(body!)).toEqual({ status: "error", code: "invalid_request", message: "Malformed HTTP request" });
    });
  });

  describe("errors inside the contract (defect 4)", () => {
    it("the static file server's refusals are 404 not_found, never a 500 or an error in the log", async () => {
      expect((await anon.get("/assets/app-1.js")).status).toBe(200);
      for (const path of [
        "/assets/..%2f",
        "/assets/%2F",
        "/assets/..%2fsecret.txt",
        "/assets/..%2f..%2fpackage.json",
        "/assets/.%2e/secret.txt",
        "/assets/%2e%2e/index.html",
        "/assets/.hidden",
      ]) {
        const r = await anon.get(path);
        expectContract(r, path);
        expect(r.status, `${path}: ${r.text}`).toBe(404);
        expect(r.body.code).toBe("not_found");
        expect(r.text).not.toContain("outside assets");
      }
      expect(errorsLogged()).toEqual([]);
    });

    it("addresses Fastify cannot decode answer 400 invalid_request with the error body and security headers", async () => {
      for (const path of [
        "/%c0",
        "/%",
        "/api/links/%",
        "/api/links/%ED%A0%80",
        "/api/links/%zz/stats",
        `/${alias}%`,
        "/app/%c0",
        `/api/links/${"x".repeat(300)}`,
      ]) {
        for (const accept of ["application/json", "text/html"]) {
          const r = await a.get(path, { accept });
          expectContract(r, path);
          expect(r.status, `${path}: ${r.text}`).toBe(400);
          expect(JSON.parse(r.text).code).toBe("invalid_request");
        }
      }
      expect(errorsLogged()).toEqual([]);
    });

    it("a cached link with bad percent-encoding in its query answers as an uncached one (fast path and Fastify alike)", async () => {
      const fresh = (await createLink(a, { url: "https://example.com/fast", alias: "fast-bad-q" })).alias;
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) {
        for (const q of ["?x=%", "?%c0", "?a=%00", "?%ED%A0%80"]) {
          const r = await anon.get(`/${fresh}${q}`, { accept: "text/html" });
          answers.push(`${r.status} ${r.headers.get("location")}`);
        }
      }
      expect(new Set(answers)).toEqual(new Set(["302 https://example.com/fast"]));
    });
  });

  describe("unknown fields and bodies (defect 7)", () => {
    it("verify-email/resend, logout and subscription/cancel refuse bodies they do not take", async () => {
      const pro = await signedInClient(server, "hostile-pro@example.com", "pro");
      for (const [client, path] of [
        [pro, "/api/auth/verify-email/resend"],
        [pro, "/api/auth/logout"],
        [pro, "/api/subscription/cancel"],
      ] as const) {
        for (const body of ['{"zzz":1}', "[1,2]", '"x"', "[]", "1", "true"]) {
          const r = await client.request("POST", path, body, { "content-type": "application/json" });
          expectContract(r, `${path} ${body}`);
          expect(r.status, `${path} ${body}: ${r.text}`).toBe(400);
          expect(r.body.code).toBe("invalid_request");
        }
      }
      // Still signed in, still on Pro: nothing was done.
      expect((await pro.get("/api/profile")).body.user.plan).toBe("pro");
      // No body, or {}, is what these routes take.
      expect((await pro.request("POST", "/api/subscription/cancel", "{}", { "content-type": "application/json" })).status).toBe(200);
      expect((await pro.post("/api/auth/logout")).status).toBe(200);
    });

    it("every route with a body refuses unknown fields and wrong body types; every other state-changing route refuses any body", async () => {
      const routes = routesOf(server).filter((r) => STATE_CHANGING.has(r.method));
      const withBody = routes.filter((r) => r.body);
      const without = routes.filter((r) => !r.body);
      expect(withBody.length).toBeGreaterThanOrEqual(12);
      expect(without.map((r) => `${r.method} ${r.url}`)).toEqual(
        expect.arrayContaining(["POST /api/auth/logout", "POST /api/auth/verify-email/resend", "POST /api/subscription/cancel"]),
      );
      const failures: string[] = [];
      let checked = 0;
      // The operator console refuses everyone else before reading the body (docs/operator.md): its routes are sent by an operator.
      const operator = await signedInClient(server, "hostile-ops@example.com", "business");
      await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", "hostile-ops@example.com").execute();
      // SCIM's routes (docs/scim.md) are sent with a connection's token and refuse in SCIM's error schema.
      const scimToken = (await scimTeam(server, "hostile-scim.test")).token;
      const send = async (r: (typeof routes)[number], raw: string, expectField?: string) => {
        const path = concretePath(r.url, { id: "x1", alias: "x1a", host: "x1.example", "*": "x1" });
        if (r.url.startsWith("/scim/")) {
          const res = await a.request(r.method, path, raw, { "content-type": "application/scim+json", authorization: `Bearer ${scimToken}` });
          checked++;
          const violation = contractViolation(res);
          if (violation || res.status !== 400 || !["invalidSyntax", "invalidValue"].includes(res.body.scimType))
            failures.push(`${r.method} ${r.url} ${raw.slice(0, 40)} -> ${res.status} ${violation ?? res.text.slice(0, 120)}`);
          return;
        }
        // The key goes to the routes that take one (any other refuses a key before its body: key-scopes-routes.test.ts).
        const auth: Record<string, string> = r.keyScopes ? { authorization: `Bearer ${key}` } : {};
        const res = await (r.url.startsWith("/api/admin/") ? operator : a).request(r.method, path, raw, { "content-type": "application/json", ...auth });
        checked++;
        const violation = contractViolation(res);
        if (violation) return failures.push(`${r.method} ${r.url} ${raw.slice(0, 40)}: ${violation}`);
        if (res.status !== 400 || res.body.code !== "invalid_request")
          return failures.push(`${r.method} ${r.url} ${raw.slice(0, 40)} -> ${res.status} ${res.text.slice(0, 120)}`);
        if (expectField && !res.body.details?.some((d: { field: string }) => d.field.split(".").includes(expectField)))
          failures.push(`${r.method} ${r.url}: details do not name ${expectField}: ${res.text}`);
      };
      const before = await rowCounts(server);
      for (const r of withBody) {
        const valid = Value.Create((r.schema as { body: TSchema }).body) as Record<string, unknown>;
        await send(r, JSON.stringify({ ...valid, zzz: 1 }), "zzz");
        for (const wrong of ["[1,2]", '"x"', "1", "null", "true", "[]"]) await send(r, wrong);
      }
      for (const r of without) for (const body of ['{"zzz":1}', "[1,2]", '"x"']) await send(r, body);
      expect(failures).toEqual([]);
      expect(checked).toBe(withBody.length * 7 + without.length * 3);
      expect(await rowCounts(server)).toEqual(before);
      expect((await a.get("/api/profile")).status).toBe(200);
    });
  });
});
