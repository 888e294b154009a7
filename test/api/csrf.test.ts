// Every state-changing /api route refuses a missing or wrong CSRF token, including routes added later.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { STATE_CHANGING } from "../../src/http/auth.js";
import { KEY_ROUTE_SCOPES } from "../../src/contract/api-keys.js";

let server: TestServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startTestServer();
  client = await signedInClient(server, "csrf@example.com", "enterprise");
});
afterAll(async () => server?.close());

function guarded() {
  return server.app.routeList.filter((r) => STATE_CHANGING.has(r.method) && r.url.startsWith("/api/"));
}

describe("CSRF on every state-changing route", () => {
  it("finds the routes to check, and only the Bearer-key routes opt out (the contract's key routes)", () => {
    const routes = guarded();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const keyRoutes = Object.keys(KEY_ROUTE_SCOPES).filter((r) => STATE_CHANGING.has(r.split(" ")[0]!));
    // Stripe's deliveries carry no session: the Stripe-Signature made with the account's secret is their credential.
    // A SAML identity provider's page posts its signed Response: the signature, InResponseTo and the sign-in's cookie bind it.
    const signedBySender = ["POST /api/integrations/stripe/webhook/:token", "POST /api/sso/saml/:connection/acs"];
    expect(
      routes
        .filter((r) => !r.csrf && !signedBySender.includes(`${r.method} ${r.url}`))
        .map((r) => `${r.method} ${r.url}`)
        .sort(),
    ).toEqual(routes.some((r) => r.url === "/api/external-create.php") ? keyRoutes.sort() : []);
    expect(
      routes
        .filter((r) => !r.csrf && signedBySender.includes(`${r.method} ${r.url}`))
        .map((r) => `${r.method} ${r.url}`)
        .sort(),
    ).toEqual([...signedBySender].sort());
    // The others opt out because they take a key: they declare their scopes.
    expect(routes.filter((r) => !r.csrf && !r.keyScopes && !signedBySender.includes(`${r.method} ${r.url}`))).toEqual([]);
  });

  it("refuses each route without the token and with a wrong one (403 csrf_failed), signed in", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const r of guarded().filter((x) => x.csrf)) {
      const path = r.url.replace(/:[A-Za-z_]+/g, "x1");
      for (const token of [undefined, "0".repeat(64), client.csrf!.slice(0, -1) + (client.csrf!.endsWith("a") ? "b" : "a")]) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (token) headers["x-csrf-token"] = token;
        else headers["x-csrf-token"] = "";
        const res = await fetch(server.url + path, { method: r.method, headers: { ...headers, cookie: client.cookie! }, body: "{}" });
        const body = (await res.json().catch(() => null)) as { code?: string } | null;
        checked++;
        if (res.status !== 403 || body?.code !== "csrf_failed") failures.push(`${r.method} ${r.url} token=${token ?? "none"} -> ${res.status} ${body?.code}`);
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(36);
  });

  it("refuses a token bound to another session", async () => {
    const other = await signedInClient(server, "csrf2@example.com");
    const res = await fetch(`${server.url}/api/profile`, {
      method: "PATCH",
      headers: { "content-type": "application/json", cookie: client.cookie!, "x-csrf-token": other.csrf! },
      body: JSON.stringify({ name: "x" }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("csrf_failed");
  });

  it("guards sign-in and sign-up too (login CSRF)", async () => {
    for (const path of ["/api/auth/login", "/api/auth/signup"]) {
      const res = await fetch(server.url + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "csrf@example.com", password: "correct horse 1" }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("accepts the right token", async () => {
    const res = await client.patch("/api/profile", { name: "Ok" });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe("Ok");
  });
});
