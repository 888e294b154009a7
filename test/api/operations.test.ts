// Operations and the error contract: health, OpenAPI, docs, security headers, limits, hidden 5xx.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe("operations", () => {
  it("describes the API in OpenAPI, generated from the route schemas", async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };
    expect(doc.openapi).toBe("3.0.3");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/auth/session", "/api/auth/signup", "/api/auth/login", "/api/profile", "/healthz"]));
    expect(doc.paths["/api/auth/signup"]!.post!.requestBody).toBeDefined();
    const docs = await fetch(`${server.url}/docs`, { redirect: "follow" });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });

  it("sends security headers", async () => {
    const res = await fetch(`${server.url}/api/auth/session`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("answers unknown API paths with JSON 404 and other paths with a small HTML page", async () => {
    const api = await fetch(`${server.url}/api/nope`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ status: "error", code: "not_found", message: "Not found" });
    const page = await fetch(`${server.url}/some/deep/path`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
  });

  it("refuses malformed JSON, a wrong content type and bodies over 1 MiB with stable codes", async () => {
    const c = await new ApiClient(server.url).init();
    const bad = await c.request("POST", "/api/auth/login", '{"email":', { "content-type": "application/json" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    const text = await c.request("POST", "/api/auth/login", "email=a", { "content-type": "application/x-www-form-urlencoded" });
    expect(text.status).toBe(400);
    expect(text.body.code).toBe("invalid_request");
    const big = await c.request("POST", "/api/auth/login", JSON.stringify({ email: "a@example.com", password: "x".repeat(1024 * 1024) }), {
      "content-type": "application/json",
    });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("payload_too_large");
    const notObject = await c.request("POST", "/api/auth/login", "[]", { "content-type": "application/json" });
    expect(notObject.status).toBe(400);
  });

  it("hides internals in a 5xx", async () => {
    const other = await startTestServer();
    const c = await new ApiClient(other.url).signup("down@example.com");
    expect(c.status).toBe(201);
    const cookie = c.headers.get("set-cookie")!.split(";")[0]!;
    await other.ctx.storage.db.destroy();
    const res = await fetch(`${other.url}/api/profile`, { headers: { cookie } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: "error", code: "internal_error", message: "Internal error" });
    expect(text).not.toMatch(/sqlite|select|stack|\/work\//i);
    // The health check tells a database that does not answer (503 unavailable, docs/operations.md), showing nothing of why.
    const health = await fetch(`${other.url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).toBe("5");
    const healthText = await health.text();
    expect(JSON.parse(healthText)).toEqual({
      status: "error",
      code: "unavailable",
      message: "The service is temporarily unavailable; try again in a few seconds",
    });
    expect(healthText).not.toMatch(/sqlite|select|stack|destroyed|\/work\//i);
    await other.app.close();
  });
});
