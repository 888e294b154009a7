// The IDOR table: every route with a path parameter naming something an account owns, called by another
// account, answers 404 not_found (not 403, not 200), on both engines. The table is checked against
// app.routeList: a route with a path parameter that it does not list fails the test, so each new route
// needs one line here (a fixture that creates the resource for account A and returns its path).
import { Value } from "typebox/value";
import type { TSchema } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { waitFor } from "../helpers/wait.js";
import { expectContract, paramNames, rowCounts, routesOf } from "../helpers/routes.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";
import { customerWithSale } from "../helpers/conversions.js";

/** Account A, signed in, on the plan with every capability; fixtures create its resources through the API. */
interface Owner {
  client: ApiClient;
  server: TestServer;
}

/** The path of a fresh resource of A's; `own` when A's own request is expected to answer otherwise than 2xx (per method or for all). */
type Fixture = (a: Owner) => Promise<string | { path: string; own: number | Partial<Record<string, number>> }>;

let n = 0;
const link: Fixture = async (a) => (await createLink(a.client, { url: "https://example.com/idor", alias: `idor-${++n}-${Date.now().toString(36)}` })).id;

async function created(res: { status: number; text: string; body: Record<string, { id: string }> }, key: string): Promise<string> {
  if (res.status !== 201) throw new Error(`fixture: ${res.status} ${res.text}`);
  return res.body[key]!.id;
}
const domain = async (a: Owner) => created(await a.client.post("/api/domains", { hostname: `idor-${++n}.example` }), "domain");
const invitation = async (a: Owner) => created(await a.client.post("/api/team/invitations", { email: `idor-invitee-${++n}@example.com` }), "invitation");
// A public address literal: no DNS lookup at creation; the test event's delivery fails (no internet here) and is logged.
const webhook = async (a: Owner) =>
  created(await a.client.post("/api/webhooks", { name: "idor", url: "https://93.184.216.34/hook", kind: "custom" }), "webhook");
// A broker on a public address literal: no DNS lookup at creation, nothing connects during the test.
const stream = async (a: Owner) =>
  created(await a.client.post("/api/streams", { name: "idor", kind: "redis", url: "redis://:pw@93.184.216.34:6379" }), "stream");
const userId = async (c: ApiClient): Promise<string> => (await c.get("/api/auth/session")).body.user.id;
const newUser = async (a: Owner) => userId(await signedInClient(a.server, `idor-user-${++n}@example.com`, "business"));
/** A team membership written directly (the invitation flow has tests of its own); returns the id the route names. */
async function membership(a: Owner, ownerId: string, memberId: string): Promise<string> {
  await a.server.ctx.storage.db.insertInto("team_members").values({ owner_id: ownerId, member_id: memberId, joined_at: Date.now() }).execute();
  const self = await userId(a.client);
  return self === ownerId ? memberId : ownerId;
}

/** A passkey of A's, registered through the API with a software authenticator. */
async function passkey(a: Owner): Promise<string> {
  const options = (await a.client.post("/api/auth/passkeys/register/options")).body.options;
  return created(
    await a.client.post("/api/auth/passkeys/register/verify", { response: new SoftAuthenticator(a.server.config.origin).register(options) }),
    "passkey",
  );
}

/** A finished CSV import of A's (finished: no background writes while B's requests are counted). */
async function importJob(a: Owner): Promise<string> {
  const id = await created(await a.client.post("/api/imports", { source: "csv", file: `url\nhttps://example.com/idor-${++n}\n` }), "import");
  await waitFor(async () => (await a.client.get(`/api/imports/${id}`)).body.import.state === "done", { what: "the import to finish" });
  return id;
}

/** Route pattern -> the path of a fresh resource of A's. One line per route with an owned resource in its path. */
const OWNED: Record<string, Fixture> = {
  "/api/links/:id": async (a) => `/api/links/${await link(a)}`,
  "/api/links/:id/stats": async (a) => `/api/links/${await link(a)}/stats`,
  "/api/links/:id/resolve": async (a) => `/api/links/${await link(a)}/resolve`,
  "/api/links/:id/health": async (a) => `/api/links/${await link(a)}/health`,
  "/api/links/:id/stats.csv": async (a) => `/api/links/${await link(a)}/stats.csv`,
  "/api/keys/:id": async (a) => `/api/keys/${(await a.client.post("/api/keys", { name: "idor" })).body.key.id}`,
  "/api/domains/:id": async (a) => `/api/domains/${await domain(a)}`,
  "/api/domains/:id/verify": async (a) => `/api/domains/${await domain(a)}/verify`,
  "/api/domains/:id/apps": async (a) => `/api/domains/${await domain(a)}/apps`,
  "/api/domains/:id/orphan-visits": async (a) => `/api/domains/${await domain(a)}/orphan-visits`,
  "/api/team/invitations/:id": async (a) => `/api/team/invitations/${await invitation(a)}`,
  // A resend within a minute of the send is 429 for its owner too: the point is B's 404.
  "/api/team/invitations/:id/resend": async (a) => ({ path: `/api/team/invitations/${await invitation(a)}/resend`, own: 429 }),
  "/api/team/members/:user_id": async (a) => `/api/team/members/${await membership(a, await userId(a.client), await newUser(a))}`,
  "/api/memberships/:owner_id": async (a) => `/api/memberships/${await membership(a, await newUser(a), await userId(a.client))}`,
  "/api/webhooks/:id": async (a) => `/api/webhooks/${await webhook(a)}`,
  "/api/webhooks/:id/secret": async (a) => `/api/webhooks/${await webhook(a)}/secret`,
  "/api/webhooks/:id/test": async (a) => `/api/webhooks/${await webhook(a)}/test`,
  "/api/webhooks/:id/deliveries": async (a) => `/api/webhooks/${await webhook(a)}/deliveries`,
  "/api/streams/:id": async (a) => `/api/streams/${await stream(a)}`,
  "/api/tags/:id": async (a) => `/api/tags/${await created(await a.client.post("/api/tags", { name: `idor-${++n}` }), "tag")}`,
  // The generated body's empty name is refused to its owner after the folder is found (B gets 404 first).
  "/api/folders/:id": async (a) => ({
    path: `/api/folders/${await created(await a.client.post("/api/folders", { name: `idor-${++n}` }), "folder")}`,
    own: { PATCH: 400 },
  }),
  // The generated body names no member of A's team: 400 on user_id to A, after the folder is found (B gets 404 first).
  "/api/folders/:id/access": async (a) => ({
    path: `/api/folders/${await created(await a.client.post("/api/folders", { name: `idor-${++n}` }), "folder")}/access`,
    own: { PUT: 400 },
  }),
  "/api/folders/:id/access/:user_id": async (a) => {
    const folderId = await created(await a.client.post("/api/folders", { name: `idor-${++n}` }), "folder");
    // A member joined by single sign-on: outside the 2 invitations' allowance the invitation fixtures use.
    const memberId = await newUser(a);
    await a.server.ctx.storage.db
      .insertInto("team_members")
      .values({ owner_id: await userId(a.client), member_id: memberId, joined_at: Date.now(), joined_by: "sso" })
      .execute();
    return `/api/folders/${folderId}/access/${memberId}`;
  },
  "/api/imports/:id": async (a) => `/api/imports/${await importJob(a)}`,
  "/api/imports/:id/cancel": async (a) => `/api/imports/${await importJob(a)}/cancel`,
  // Only a failed or cancelled import resumes: a finished one is 409 for its owner.
  "/api/imports/:id/resume": async (a) => ({ path: `/api/imports/${await importJob(a)}/resume`, own: 409 }),
  "/api/imports/:id/report.csv": async (a) => `/api/imports/${await importJob(a)}/report.csv`,
  "/api/imports/:id/failed": async (a) => `/api/imports/${await importJob(a)}/failed`,
  // An address literal as issuer: public, and no DNS needed (this server's DNS goes nowhere).
  "/api/sso/domains/:domain/verify": async (a) => {
    const domain = `idor-${++n}.example`;
    const r = await a.client.put("/api/sso", { issuer: "https://93.184.215.14/", client_id: "idor", client_secret: "idor-secret", domains: [domain] });
    if (r.status !== 200) throw new Error(`fixture: ${r.status} ${r.text}`);
    return `/api/sso/domains/${domain}/verify`;
  },
  // Another session of A's (not the one A's requests use), named by its public id.
  "/api/auth/sessions/:id": async (a) => {
    await a.server.ctx.sessions.create(await userId(a.client));
    const list = (await a.client.get("/api/auth/sessions")).body.sessions as Array<{ id: string; current: boolean }>;
    return `/api/auth/sessions/${list.find((s) => !s.current)!.id}`;
  },
  // The generated bodies (a blank name, an empty password) are refused for the owner (400); B gets 404 first.
  "/api/auth/passkeys/:id": async (a) => ({ path: `/api/auth/passkeys/${await passkey(a)}`, own: { DELETE: 400, PATCH: 400 } }),
  // A customer of A's (the dashboard's session routes; the key routes are key-scopes-routes.test.ts's).
  "/api/conversions/customers/:external_id": async (a) => {
    const externalId = `idor-customer-${++n}`;
    await customerWithSale(a.server, (await createLink(a.client, { url: "https://example.com/idor-customer" })).id, externalId, `inv-idor-${n}`);
    return `/api/conversions/customers/${externalId}`;
  },
  "/api/bio-pages/:id": async (a) =>
    `/api/bio-pages/${(await a.client.post("/api/bio-pages", { slug: `idor-bio-${++n}`, title: "t", blocks: [] })).body.page.id}`,
  "/api/shares/:id": async (a) => `/api/shares/${(await a.client.post("/api/shares", { link_id: await link(a) })).body.id}`,
  "/api/utm-templates/:id": async (a) =>
    `/api/utm-templates/${await created(await a.client.post("/api/utm-templates", { name: `idor-${++n}`, utm_source: "idor" }), "template")}`,
};

/** Routes whose path parameter names nothing private: public by docs/api.md, or files. */
const PUBLIC: Record<string, string> = {
  "/:alias": "the short link itself (docs/api.md: public)",
  "/share/:token": "a shared statistics page: an unguessable token is the credential, revocable (test/api/shares.test.ts)",
  "/api/qr/:alias": "the QR code of a short link (docs/api.md: public, like the short URL)",
  "/app/*": "dashboard client routes (index.html)",
  "/assets/*": "dashboard build files",
  "/docs/static/*": "OpenAPI UI files",
  "/api/sso/saml/:connection/metadata": "snip's SAML service-provider metadata: public by design, given to the identity provider (test/api/sso-saml.test.ts)",
  "/api/sso/saml/:connection/start": "starts a SAML sign-in through a connection (public, like GET /api/auth/sso/start)",
  "/api/sso/saml/:connection/acs": "the SAML Assertion Consumer Service: a signed Response to this browser's own request signs in (test/api/sso-saml.test.ts)",
  "/scim/v2/Users/:id":
    "SCIM: no session reaches it; the bearer token names the connection, and another connection's token answers 404 (test/api/scim-refusals.test.ts)",
  "/scim/v2/Groups/:id":
    "SCIM: no session reaches it; the bearer token names the connection, and another connection's token answers 404 (test/api/scim-refusals.test.ts)",
  "/api/integrations/stripe/webhook/:token":
    "the account's Stripe endpoint: an unguessable token, each event checked against its signing secret (test/api/conversions-stripe.test.ts)",
};

/**
 * Reads whose `?owner=` names the account whose things they show (a team owner's, for its members): another
 * account's id answers 404 not_found. Checked against app.routeList like OWNED.
 */
const OWNER_QUERY = [
  "/api/links",
  "/api/links/export",
  "/api/tags",
  "/api/folders",
  "/api/utm-templates",
  "/api/shares",
  "/api/analytics",
  "/api/analytics.csv",
  // Custom domains, webhooks and click streams of a team (docs/roles.md).
  "/api/domains",
  "/api/webhooks",
  "/api/streams",
  "/api/analytics/live",
  // The team an admin administers (docs/roles.md), and its audit log (docs/audit.md).
  "/api/team",
  "/api/team/audit",
  "/api/team/audit.csv",
  "/api/team/audit.json",
];

/** The status of a GET, leaving a live feed (a stream that never ends by itself) or a CSV at its headers. */
async function statusOf(c: ApiClient, path: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(c.baseUrl + path, { headers: { cookie: c.cookie ?? "", accept: "application/json" } });
  if (!res.headers.get("content-type")?.startsWith("application/json")) {
    await res.body?.cancel();
    return { status: res.status };
  }
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code };
}

describe.each(ENGINES)("IDOR table on %s", (engine) => {
  let server: TestServer;
  let a: Owner;
  let b: ApiClient;

  beforeAll(async () => {
    // DNS goes to a closed local port: domain checks answer "DNS not answering" at once, never the internet.
    server = await startTestServer({ engine, env: { DNS_SERVERS: "127.0.0.1:9" } });
    a = { client: await signedInClient(server, "idor-a@example.com", "enterprise"), server };
    b = await signedInClient(server, "idor-b@example.com", "enterprise");
    // B owns things too, so an answer cannot come from B having nothing.
    await createLink(b, { url: "https://example.com/b", alias: "idor-b-own" });
    await b.post("/api/keys", { name: "b" });
  });
  afterAll(async () => server?.close());

  it("covers every route with a path parameter (add a line to OWNED or PUBLIC for a new one)", () => {
    // Operator routes name other accounts' things by design: only operators reach them (test/api/admin-routes.test.ts walks them all).
    // Key routes take no session: test/api/key-scopes-routes.test.ts calls them with another account's key.
    const withParams = [
      ...new Set(
        routesOf(server)
          .filter((r) => paramNames(r.url).length > 0 && !r.url.startsWith("/api/admin/") && !r.keyScopes)
          .map((r) => r.url),
      ),
    ];
    const uncovered = withParams.filter((url) => !(url in OWNED) && !(url in PUBLIC));
    expect(uncovered, "routes with a path parameter missing from the IDOR table").toEqual([]);
    // No stale lines either: each entry names a route that exists.
    expect(Object.keys(OWNED).filter((url) => !withParams.includes(url))).toEqual([]);
  });

  it("answers 404 not_found to another account's ?owner= on every read that takes one", async () => {
    const withOwner = routesOf(server).filter(
      (r) =>
        r.method === "GET" &&
        !r.url.startsWith("/api/admin/") &&
        (r.schema as { querystring?: { properties?: Record<string, unknown> } } | undefined)?.querystring?.properties?.owner !== undefined,
    );
    expect(withOwner.map((r) => r.url).sort(), "GET routes with ?owner= missing from OWNER_QUERY").toEqual([...OWNER_QUERY].sort());
    const aId = await userId(a.client);
    for (const url of OWNER_QUERY) {
      expect(await statusOf(b, `${url}?owner=${aId}`), `${url}?owner= by B`).toEqual({ status: 404, code: "not_found" });
      expect((await statusOf(a.client, `${url}?owner=${aId}`)).status, `${url}?owner= by its owner`).toBe(200);
    }
  });

  it("answers 404 not_found to another account on every method of every owned route, and changes nothing", async () => {
    const routes = routesOf(server).filter((r) => r.url in OWNED);
    const results: string[] = [];
    for (const r of routes) {
      const fixture = await OWNED[r.url]!(a);
      const { path, own: expected } = typeof fixture === "string" ? { path: fixture, own: undefined } : fixture;
      const ownStatus = typeof expected === "object" ? expected[r.method] : expected;
      const before = await rowCounts(server);
      // A body the route accepts, so validation cannot answer before the ownership check.
      const schema = (r.schema as { body?: TSchema } | undefined)?.body;
      const body = schema ? JSON.stringify(Value.Create(schema)) : undefined;
      const res = await b.request(r.method, path, body, body ? { "content-type": "application/json" } : {});
      expectContract(res, `${r.method} ${path} by B`);
      results.push(`${r.method} ${r.url} -> ${res.status} ${res.body?.code ?? ""}`.trim());
      expect(await rowCounts(server), `${r.method} ${path} by B changed rows`).toEqual(before);
      // The fixture is real: the same request by its owner succeeds.
      const own = await a.client.request(r.method, path, body, body ? { "content-type": "application/json" } : {});
      if (ownStatus === undefined) expect(own.status, `${r.method} ${path} by its owner: ${own.text}`).toBeLessThan(300);
      else expect(own.status, `${r.method} ${path} by its owner: ${own.text}`).toBe(ownStatus);
    }
    expect(results).toEqual(routes.map((r) => `${r.method} ${r.url} -> 404 not_found`));
    expect(results.length).toBeGreaterThanOrEqual(6);
  });
});
