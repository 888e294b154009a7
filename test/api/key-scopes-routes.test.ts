// Key scopes over every route of the app (app.routeList), as the CSRF and IDOR tests walk them: a route that
// takes a key declares its scopes (contract/api-keys.ts, KEY_ROUTE_SCOPES) and refuses a key without one of them
// (403 insufficient_scope naming them), accepts it with each of them, and answers 404 to another account's key
// for another account's link; an /api route that declares none refuses every key (401, even signed in), and
// outside /api a key changes no answer. A new key route needs one line in
// ACCEPT (a request it answers with success).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { customerWithSale, trackedClick } from "../helpers/conversions.js";
import { concretePath, expectContract, rowCounts, routesOf } from "../helpers/routes.js";
import { API_KEY_SCOPES, KEY_ROUTE_SCOPES, type ApiKeyScope } from "../../src/contract/api-keys.js";
import { KEY_NOT_TAKEN } from "../../src/http/key-auth.js";
import { STATE_CHANGING } from "../../src/http/auth.js";

interface Call {
  path: string;
  body?: unknown;
  status: number;
}

let n = 0;
/** The server of the running engine (the conversion routes' calls store a tracked click or a customer first). */
let current: TestServer;
const customer = async (c: ApiClient, sale = false) => {
  const id = `cus-${++n}`;
  await customerWithSale(current, await fresh(c), id, sale ? `in-${id}` : undefined);
  return id;
};
const fresh = async (c: ApiClient) => (await createLink(c, { url: "https://example.com/scoped", alias: `scoped-${++n}-${Date.now().toString(36)}` })).id;
const share = async (c: ApiClient) => (await c.post("/api/shares", { link_id: await fresh(c) })).body.id as string;
const bioBody = () => ({ slug: `scoped-bio-${++n}-${Date.now().toString(36)}`, title: "Scoped", blocks: [{ type: "heading", text: "Hello" }] });
/** A page of the account: one kept while it lives (an account holds at most 20, and each refused pair asks for one). */
const bioPage = async (c: ApiClient) =>
  ((await c.get("/api/bio-pages")).body.pages[0]?.id ?? (await c.post("/api/bio-pages", bioBody())).body.page.id) as string;

/** Key route -> a request its account's key with the scope gets a success for (and the status expected). */
const ACCEPT: Record<keyof typeof KEY_ROUTE_SCOPES, (c: ApiClient) => Promise<Call>> = {
  "POST /api/external-create.php": async () => ({ path: "/api/external-create.php", body: { url: "https://example.com/made-by-key" }, status: 201 }),
  "GET /api/external-export": async () => ({ path: "/api/external-export?format=json", status: 200 }),
  "GET /api/external/links": async () => ({ path: "/api/external/links?limit=5", status: 200 }),
  "GET /api/external/links/:id": async (c) => ({ path: `/api/external/links/${await fresh(c)}`, status: 200 }),
  "PATCH /api/external/links/:id": async (c) => ({
    path: `/api/external/links/${await fresh(c)}`,
    body: { url: "https://example.com/edited-by-key" },
    status: 200,
  }),
  "DELETE /api/external/links/:id": async (c) => ({ path: `/api/external/links/${await fresh(c)}`, status: 200 }),
  "GET /api/external/links/:id/stats": async (c) => ({ path: `/api/external/links/${await fresh(c)}/stats`, status: 200 }),
  "GET /api/external/links/:id/health": async (c) => ({ path: `/api/external/links/${await fresh(c)}/health`, status: 200 }),
  "POST /api/track/lead": async (c) => ({
    path: "/api/track/lead",
    body: { click_id: await trackedClick(current, await fresh(c)), customer_external_id: `lead-${++n}`, event_name: "Sign up" },
    status: 201,
  }),
  "POST /api/track/sale": async (c) => ({
    path: "/api/track/sale",
    body: { customer_external_id: await customer(c), amount: 500, currency: "EUR" },
    status: 201,
  }),
  "POST /api/track/refund": async (c) => ({ path: "/api/track/refund", body: { invoice_id: `in-${await customer(c, true)}` }, status: 200 }),
  "GET /api/customers": async () => ({ path: "/api/customers?limit=5", status: 200 }),
  "GET /api/customers/:external_id": async (c) => ({ path: `/api/customers/${await customer(c)}`, status: 200 }),
  "DELETE /api/customers/:external_id": async (c) => ({ path: `/api/customers/${await customer(c)}`, status: 200 }),
  "POST /api/deeplinks/open": async (c) => {
    const alias = `scoped-open-${++n}`;
    await createLink(c, { url: "https://example.com/app", alias });
    return { path: "/api/deeplinks/open", body: { url: `${current.url}/${alias}` }, status: 200 };
  },
  "GET /api/external/shares": async () => ({ path: "/api/external/shares", status: 200 }),
  "POST /api/external/shares": async (c) => ({ path: "/api/external/shares", body: { link_id: await fresh(c) }, status: 201 }),
  "DELETE /api/external/shares/:id": async (c) => ({ path: `/api/external/shares/${await share(c)}`, status: 200 }),
  "GET /api/external/bio-pages": async () => ({ path: "/api/external/bio-pages", status: 200 }),
  "GET /api/external/bio-pages/:id": async (c) => ({ path: `/api/external/bio-pages/${await bioPage(c)}`, status: 200 }),
  "POST /api/external/bio-pages": async () => ({ path: "/api/external/bio-pages", body: bioBody(), status: 201 }),
  "PATCH /api/external/bio-pages/:id": async (c) => ({ path: `/api/external/bio-pages/${await bioPage(c)}`, body: { title: "Edited by a key" }, status: 200 }),
  "DELETE /api/external/bio-pages/:id": async (c) => ({ path: `/api/external/bio-pages/${await bioPage(c)}`, status: 200 }),
};

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function call(server: TestServer, method: string, path: string, key: string | null, body?: unknown, cookie?: string): Promise<Answer> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: "manual" });
  // A live feed never ends by itself, and a file need not be read: the status and type say enough.
  const type = res.headers.get("content-type") ?? "";
  const text = type.startsWith("application/json") ? await res.text() : (await res.body?.cancel(), "");
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

describe.each(ENGINES)("key scopes over every route on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  const keys = new Map<string, string>();
  let allScopes: string;
  let otherAll: string;

  async function key(c: ApiClient, scopes: readonly ApiKeyScope[]): Promise<string> {
    const r = await c.post("/api/keys", { name: scopes.join(" ").slice(0, 100) || "none", scopes });
    if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
    return r.body.secret as string;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
    current = server;
    owner = await signedInClient(server, "scopes-owner@example.com", "business");
    for (const s of API_KEY_SCOPES) keys.set(s, await key(owner, [s]));
    allScopes = await key(owner, API_KEY_SCOPES);
    otherAll = await key(await signedInClient(server, "scopes-other@example.com", "business"), API_KEY_SCOPES);
  });
  afterAll(async () => server?.close());

  it("declares on each route exactly the scopes the contract gives it, and every key route is in ACCEPT", () => {
    const declared = routesOf(server).filter((r) => r.keyScopes !== undefined);
    expect(Object.fromEntries(declared.map((r) => [`${r.method} ${r.url}`, [...r.keyScopes!]]))).toEqual(
      Object.fromEntries(Object.entries(KEY_ROUTE_SCOPES).map(([route, scopes]) => [route, [...scopes]])),
    );
    expect(Object.keys(ACCEPT).sort()).toEqual(Object.keys(KEY_ROUTE_SCOPES).sort());
    // Each scope opens at least one route; none is decoration.
    expect(API_KEY_SCOPES.filter((s) => !declared.some((r) => r.keyScopes!.includes(s)))).toEqual([]);
  });

  it("refuses a key without the route's scope (403 insufficient_scope naming it) and accepts one with it", async () => {
    const results: string[] = [];
    for (const r of routesOf(server).filter((x) => x.keyScopes !== undefined)) {
      const route = `${r.method} ${r.url}` as keyof typeof KEY_ROUTE_SCOPES;
      const needed = r.keyScopes!;
      for (const scope of API_KEY_SCOPES.filter((s) => !needed.includes(s))) {
        const { path, body } = await ACCEPT[route](owner);
        const before = await rowCounts(server);
        const a = await call(server, r.method, path, keys.get(scope)!, body);
        expectContract(a, `${route} with ${scope}`);
        expect(a.status, `${route} with ${scope}: ${a.text}`).toBe(403);
        expect(a.body.code).toBe("insufficient_scope");
        expect(a.body.required_scopes).toEqual([...needed]);
        for (const s of needed) expect(a.body.message).toContain(s);
        expect(await rowCounts(server), `${route} with ${scope} changed rows`).toEqual(before);
        results.push(`${route} ${scope} -> ${a.status} ${a.body.code}`);
      }
      for (const scope of [...needed, "all" as const]) {
        const { path, body, status } = await ACCEPT[route](owner);
        const a = await call(server, r.method, path, scope === "all" ? allScopes : keys.get(scope)!, body);
        expect(a.status, `${route} with ${scope}: ${a.text}`).toBe(status);
      }
    }
    // 23 routes, 11 scopes: 253 pairs less the 24 route-scope pairs that admit.
    expect(results.length).toBe(229);
  });

  it("answers another account's key for this account's link or customer 404 not_found, whatever its scopes", async () => {
    const named = routesOf(server).filter((x) => x.keyScopes !== undefined && /:(?:id|external_id)\b/.test(x.url));
    expect(named.filter((r) => r.url.includes(":external_id")).map((r) => r.method)).toEqual(["GET", "DELETE"]);
    for (const r of named) {
      const { path, body } = await ACCEPT[`${r.method} ${r.url}` as keyof typeof KEY_ROUTE_SCOPES](owner);
      const before = await rowCounts(server);
      const a = await call(server, r.method, path, otherAll, body);
      expect(`${r.method} ${r.url} -> ${a.status} ${a.body?.code}`).toBe(`${r.method} ${r.url} -> 404 not_found`);
      expect(await rowCounts(server)).toEqual(before);
    }
  });

  it("refuses any key, with every scope, on every /api route that declares none (401 unauthenticated), even with an operator's session and CSRF token", async () => {
    const routes = routesOf(server).filter((r) => r.keyScopes === undefined && r.url.startsWith("/api/"));
    expect(routes.length).toBeGreaterThanOrEqual(80);
    // An operator, signed in with the CSRF token: every check before the key's passes, so the key alone refuses.
    const operator = await signedInClient(server, "scopes-operator@example.com", "enterprise");
    await server.ctx.storage.db.updateTable("users").set({ is_admin: 1 }).where("email", "=", "scopes-operator@example.com").execute();
    const before = await rowCounts(server);
    const wrong: string[] = [];
    for (const r of routes) {
      const path = concretePath(r.url, {});
      const body = r.body ? "{}" : undefined;
      const headers: Record<string, string> = { authorization: `Bearer ${allScopes}`, ...(body ? { "content-type": "application/json" } : {}) };
      const signedIn = await operator.request(r.method, path, body, headers);
      expectContract(signedIn, `${r.method} ${r.url} signed in with a key`);
      if (signedIn.status !== 401 || signedIn.body?.code !== "unauthenticated" || signedIn.body?.message !== KEY_NOT_TAKEN)
        wrong.push(`${r.method} ${r.url} signed in -> ${signedIn.status} ${signedIn.text.slice(0, 100)}`);
      // The key alone: refused too (CSRF first on a write, as before keys had scopes).
      const alone = await call(server, r.method, path, allScopes, r.body ? {} : undefined);
      const expected = STATE_CHANGING.has(r.method) && r.csrf ? "403 csrf_failed" : "401 unauthenticated";
      if (`${alone.status} ${alone.body?.code}` !== expected) wrong.push(`${r.method} ${r.url} key alone -> ${alone.status} ${alone.body?.code}`);
    }
    expect(wrong).toEqual([]);
    expect(await rowCounts(server)).toEqual(before);
    // The session itself still works once the key is left out.
    expect((await operator.get("/api/links")).status).toBe(200);
  });

  it("gives nothing outside /api: a key changes no answer of the pages, files and short links", async () => {
    const routes = routesOf(server).filter((r) => !r.url.startsWith("/api/"));
    expect(routes.map((r) => r.keyScopes)).toEqual(routes.map(() => undefined));
    const differ: string[] = [];
    for (const r of routes) {
      const path = concretePath(r.url, {});
      const without = await call(server, r.method, path, null, r.body ? {} : undefined);
      const withKey = await call(server, r.method, path, allScopes, r.body ? {} : undefined);
      if (without.status !== withKey.status) differ.push(`${r.method} ${r.url}: ${without.status} without a key, ${withKey.status} with`);
    }
    expect(differ).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(5);
  });
});
