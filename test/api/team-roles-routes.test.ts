// The role table as routes answer it (docs/roles.md), on both engines: every route that acts on a team's data,
// called by the owner and by an admin, a member and a viewer of an Enterprise team, answers as the table
// (contract/roles.ts, ROLE_ACTIONS) says: allowed -> its success status, refused -> 403 forbidden with nothing
// written. The expectations are generated from the table; the route list is checked against app.routeList,
// so a new team route needs a line here (as test/api/idor.test.ts's table does).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import type { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { testAccount, type TestAccount } from "../helpers/team.js";
import { expectContract, rowCounts, routesOf } from "../helpers/routes.js";
import { ROLE_ACTIONS, TEAM_ROLES, type TeamAction, type TeamRole } from "../../src/contract/roles.js";

interface Fixture {
  server: TestServer;
  owner: TestAccount;
}

interface Call {
  path: string;
  body?: unknown;
  /** The allowed answer when it is not 200 (201 for a creation, 429 for a resend within the minute). */
  ok?: number;
  /** Whether the change took place (the answer alone could be a 200 that changed nothing). */
  done?: () => Promise<boolean>;
}

type Route = { action: TeamAction; call: (f: Fixture) => Promise<Call> };

/** An Android signing certificate's SHA-256 fingerprint, as an app's association lists it. */
const FINGERPRINT = Array.from({ length: 32 }, (_, i) => (i + 16).toString(16).toUpperCase()).join(":");

let n = 0;
const uid = () => `${++n}-${Date.now().toString(36)}`;

async function link(f: Fixture): Promise<string> {
  return (await createLink(f.owner.client, { url: "https://example.com/roles", alias: `roles-${uid()}` })).id;
}
const linkRow = (f: Fixture, id: string) => f.server.ctx.storage.db.selectFrom("links").selectAll().where("id", "=", id).executeTakeFirst();

async function created(r: { status: number; text: string; body: Record<string, { id: string }> }, key: string): Promise<string> {
  if (r.status !== 201) throw new Error(`fixture: ${r.status} ${r.text}`);
  return r.body[key]!.id;
}
const tag = async (f: Fixture) => created(await f.owner.client.post("/api/tags", { name: `roles-${uid()}` }), "tag");
const template = async (f: Fixture) => created(await f.owner.client.post("/api/utm-templates", { name: `roles-${uid()}`, utm_source: "roles" }), "template");
const share = async (f: Fixture) => created(await f.owner.client.post("/api/shares", { link_id: await link(f) }), "share");
const folder = async (f: Fixture) => created(await f.owner.client.post("/api/folders", { name: `roles-${uid()}` }), "folder");
const domain = async (f: Fixture) => created(await f.owner.client.post("/api/domains", { hostname: `roles-${uid()}.example` }), "domain");
/** The owner's webhooks and streams removed, so a fixture or a creation stays within their few per account. */
async function freeSlots(f: Fixture): Promise<void> {
  await f.server.ctx.storage.db.deleteFrom("webhooks").where("owner_id", "=", f.owner.id).execute();
  await f.server.ctx.storage.db.deleteFrom("stream_sinks").where("owner_id", "=", f.owner.id).execute();
}
// Public address literals: no DNS lookup at creation; a test event's delivery fails (no internet here) and is logged.
const WEBHOOK = { name: "roles", url: "https://93.184.216.34/hook", kind: "custom" };
const STREAM = { name: "roles", kind: "redis", url: "redis://:pw@93.184.216.34:6379" };
const webhook = async (f: Fixture) => (await freeSlots(f), created(await f.owner.client.post("/api/webhooks", WEBHOOK), "webhook"));
const stream = async (f: Fixture) => (await freeSlots(f), created(await f.owner.client.post("/api/streams", STREAM), "stream"));
const ownerLinks = async (f: Fixture) =>
  Number((await f.server.ctx.storage.db.selectFrom("link_counts").select("links").where("owner_id", "=", f.owner.id).executeTakeFirst())?.links ?? 0);

/** A member's stated access to a folder (undefined: none stated). */
const folderAccessRow = async (f: Fixture, folderId: string, memberId: string) =>
  (
    await f.server.ctx.storage.db
      .selectFrom("folder_access")
      .select("access")
      .where("folder_id", "=", folderId)
      .where("member_id", "=", memberId)
      .executeTakeFirst()
  )?.access;

/** A member of the owner's team written directly (joined by single sign-on: outside the 2 invitations' allowance). */
async function member(server: TestServer, ownerId: string, role: TeamRole): Promise<TestAccount> {
  const account = await testAccount(server, `roles-${role}-${uid()}@example.com`);
  await server.ctx.storage.db
    .insertInto("team_members")
    .values({ owner_id: ownerId, member_id: account.id, joined_at: Date.now(), joined_by: "sso", role })
    .execute();
  return account;
}

/** A pending invitation of the owner's, sent now (a resend within the minute answers 429 to whoever may resend). */
async function invitation(f: Fixture): Promise<string> {
  const id = `inv-${uid()}`;
  const now = Date.now();
  await f.server.ctx.storage.db
    .insertInto("team_invitations")
    .values({
      id,
      owner_id: f.owner.id,
      email: `roles-invitee-${uid()}@example.com`,
      state: "pending",
      sent_at: now,
      send_confirmed: 1,
      expires_at: now + 86_400_000,
      accepted_by: null,
      created_at: now,
      updated_at: now,
      role: "viewer",
    })
    .execute();
  return id;
}

/** The invitations' allowance (2, pending ones included) freed before an invitation is sent. */
async function freeInvitationSlots(f: Fixture): Promise<void> {
  await f.server.ctx.storage.db.updateTable("team_invitations").set({ state: "cancelled" }).where("owner_id", "=", f.owner.id).execute();
}

/** "METHOD /pattern" -> the action the role table names for it, and a fresh call on the owner's data. */
const ROUTES: Record<string, Route> = {
  "GET /api/links": { action: "links.view", call: async (f) => ({ path: `/api/links?owner=${f.owner.id}` }) },
  "POST /api/links": {
    action: "links.create",
    call: async (f) => {
      const before = await ownerLinks(f);
      return {
        path: `/api/links?owner=${f.owner.id}`,
        body: { url: "https://example.com/in-owner", alias: `in-owner-${uid()}` },
        ok: 201,
        done: async () => (await ownerLinks(f)) === before + 1,
      };
    },
  },
  "POST /api/links/bulk": {
    action: "links.create",
    call: async (f) => {
      const before = await ownerLinks(f);
      return {
        path: `/api/links/bulk?owner=${f.owner.id}`,
        body: { urls: "https://example.com/bulk-in-owner" },
        done: async () => (await ownerLinks(f)) === before + 1,
      };
    },
  },
  "GET /api/links/export": { action: "stats.view", call: async (f) => ({ path: `/api/links/export?owner=${f.owner.id}` }) },
  "GET /api/links/sparklines": { action: "links.view", call: async (f) => ({ path: `/api/links/sparklines?ids=${await link(f)}` }) },
  "GET /api/links/:id": { action: "links.view", call: async (f) => ({ path: `/api/links/${await link(f)}` }) },
  "PATCH /api/links/:id": {
    action: "links.edit",
    call: async (f) => {
      const id = await link(f);
      return { path: `/api/links/${id}`, body: { title: "Edited" }, done: async () => (await linkRow(f, id))?.title === "Edited" };
    },
  },
  "DELETE /api/links/:id": {
    action: "links.delete",
    call: async (f) => {
      const id = await link(f);
      return { path: `/api/links/${id}`, done: async () => (await linkRow(f, id)) === undefined };
    },
  },
  "GET /api/links/:id/resolve": { action: "links.view", call: async (f) => ({ path: `/api/links/${await link(f)}/resolve` }) },
  "GET /api/links/:id/health": { action: "links.view", call: async (f) => ({ path: `/api/links/${await link(f)}/health` }) },
  "GET /api/links/:id/stats": { action: "stats.view", call: async (f) => ({ path: `/api/links/${await link(f)}/stats` }) },
  "GET /api/links/:id/stats.csv": { action: "stats.view", call: async (f) => ({ path: `/api/links/${await link(f)}/stats.csv` }) },
  "PATCH /api/links/bulk": {
    action: "links.edit",
    call: async (f) => {
      const id = await link(f);
      return { path: "/api/links/bulk", body: { ids: [id], archived: true }, done: async () => (await linkRow(f, id))?.archived_at !== null };
    },
  },
  "POST /api/links/bulk/delete": {
    action: "links.delete",
    call: async (f) => {
      const id = await link(f);
      return { path: "/api/links/bulk/delete", body: { ids: [id] }, done: async () => (await linkRow(f, id)) === undefined };
    },
  },
  "GET /api/tags": { action: "links.view", call: async (f) => ({ path: `/api/tags?owner=${f.owner.id}` }) },
  "POST /api/tags": { action: "links.edit", call: async (f) => ({ path: `/api/tags?owner=${f.owner.id}`, body: { name: `t-${uid()}` }, ok: 201 }) },
  "PATCH /api/tags/:id": { action: "labels.manage", call: async (f) => ({ path: `/api/tags/${await tag(f)}`, body: { name: `r-${uid()}` } }) },
  "DELETE /api/tags/:id": { action: "labels.manage", call: async (f) => ({ path: `/api/tags/${await tag(f)}` }) },
  "GET /api/folders": { action: "links.view", call: async (f) => ({ path: `/api/folders?owner=${f.owner.id}` }) },
  "POST /api/folders": { action: "links.edit", call: async (f) => ({ path: `/api/folders?owner=${f.owner.id}`, body: { name: `f-${uid()}` }, ok: 201 }) },
  "PATCH /api/folders/:id": { action: "labels.manage", call: async (f) => ({ path: `/api/folders/${await folder(f)}`, body: { name: `r-${uid()}` } }) },
  "DELETE /api/folders/:id": { action: "labels.manage", call: async (f) => ({ path: `/api/folders/${await folder(f)}` }) },
  "GET /api/folders/:id/access": { action: "members.manage", call: async (f) => ({ path: `/api/folders/${await folder(f)}/access` }) },
  "PUT /api/folders/:id/access": {
    action: "members.manage",
    call: async (f) => {
      const [id, target] = [await folder(f), (await member(f.server, f.owner.id, "viewer")).id];
      return {
        path: `/api/folders/${id}/access`,
        body: { user_id: target, access: "none" },
        done: async () => (await folderAccessRow(f, id, target)) === "none",
      };
    },
  },
  "DELETE /api/folders/:id/access/:user_id": {
    action: "members.manage",
    call: async (f) => {
      const [id, target] = [await folder(f), (await member(f.server, f.owner.id, "viewer")).id];
      await f.server.ctx.storage.db
        .insertInto("folder_access")
        .values({ folder_id: id, owner_id: f.owner.id, member_id: target, access: "read", updated_at: Date.now() })
        .execute();
      return { path: `/api/folders/${id}/access/${target}`, done: async () => (await folderAccessRow(f, id, target)) === undefined };
    },
  },
  "GET /api/utm-templates": { action: "links.view", call: async (f) => ({ path: `/api/utm-templates?owner=${f.owner.id}` }) },
  "POST /api/utm-templates": {
    action: "links.edit",
    call: async (f) => ({ path: `/api/utm-templates?owner=${f.owner.id}`, body: { name: `u-${uid()}`, utm_source: "x" }, ok: 201 }),
  },
  "DELETE /api/utm-templates/:id": { action: "labels.manage", call: async (f) => ({ path: `/api/utm-templates/${await template(f)}` }) },
  "GET /api/shares": { action: "stats.view", call: async (f) => ({ path: `/api/shares?owner=${f.owner.id}` }) },
  "POST /api/shares": { action: "links.edit", call: async (f) => ({ path: `/api/shares?owner=${f.owner.id}`, body: { link_id: await link(f) }, ok: 201 }) },
  "DELETE /api/shares/:id": { action: "links.edit", call: async (f) => ({ path: `/api/shares/${await share(f)}` }) },
  "GET /api/domains": { action: "links.view", call: async (f) => ({ path: `/api/domains?owner=${f.owner.id}` }) },
  "POST /api/domains": {
    action: "domains.manage",
    call: async (f) => ({ path: `/api/domains?owner=${f.owner.id}`, body: { hostname: `new-${uid()}.example` }, ok: 201 }),
  },
  "POST /api/domains/:id/verify": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}/verify` }) },
  "PATCH /api/domains/:id": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}`, body: { track_conversions: true } }) },
  "DELETE /api/domains/:id": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}` }) },
  "GET /api/domains/:id/orphan-visits": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}/orphan-visits` }) },
  "GET /api/domains/:id/apps": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}/apps` }) },
  "PUT /api/domains/:id/apps": {
    action: "domains.manage",
    call: async (f) => ({
      path: `/api/domains/${await domain(f)}/apps`,
      body: { android: [{ package: "com.example.roles", sha256_cert_fingerprints: [FINGERPRINT] }] },
    }),
  },
  "DELETE /api/domains/:id/apps": { action: "domains.manage", call: async (f) => ({ path: `/api/domains/${await domain(f)}/apps` }) },
  "GET /api/webhooks": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks?owner=${f.owner.id}` }) },
  "POST /api/webhooks": {
    action: "webhooks.manage",
    call: async (f) => (await freeSlots(f), { path: `/api/webhooks?owner=${f.owner.id}`, body: WEBHOOK, ok: 201 }),
  },
  "PATCH /api/webhooks/:id": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks/${await webhook(f)}`, body: { name: "renamed" } }) },
  "DELETE /api/webhooks/:id": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks/${await webhook(f)}` }) },
  "POST /api/webhooks/:id/secret": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks/${await webhook(f)}/secret` }) },
  "POST /api/webhooks/:id/test": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks/${await webhook(f)}/test` }) },
  "GET /api/webhooks/:id/deliveries": { action: "webhooks.manage", call: async (f) => ({ path: `/api/webhooks/${await webhook(f)}/deliveries` }) },
  "GET /api/streams": { action: "webhooks.manage", call: async (f) => ({ path: `/api/streams?owner=${f.owner.id}` }) },
  "POST /api/streams": {
    action: "webhooks.manage",
    call: async (f) => (await freeSlots(f), { path: `/api/streams?owner=${f.owner.id}`, body: STREAM, ok: 201 }),
  },
  "PATCH /api/streams/:id": { action: "webhooks.manage", call: async (f) => ({ path: `/api/streams/${await stream(f)}`, body: { name: "renamed" } }) },
  "DELETE /api/streams/:id": { action: "webhooks.manage", call: async (f) => ({ path: `/api/streams/${await stream(f)}` }) },
  "GET /api/analytics": { action: "stats.view", call: async (f) => ({ path: `/api/analytics?owner=${f.owner.id}` }) },
  "GET /api/analytics.csv": { action: "stats.view", call: async (f) => ({ path: `/api/analytics.csv?owner=${f.owner.id}` }) },
  "GET /api/analytics/live": { action: "stats.view", call: async (f) => ({ path: `/api/analytics/live?owner=${f.owner.id}` }) },
  "GET /api/team": { action: "members.manage", call: async (f) => ({ path: `/api/team?owner=${f.owner.id}` }) },
  "POST /api/team/invitations": {
    action: "members.manage",
    call: async (f) => {
      await freeInvitationSlots(f);
      return { path: `/api/team/invitations?owner=${f.owner.id}`, body: { email: `roles-new-${uid()}@example.com`, role: "viewer" }, ok: 201 };
    },
  },
  "POST /api/team/invitations/:id/resend": {
    action: "members.manage",
    call: async (f) => ({ path: `/api/team/invitations/${await invitation(f)}/resend?owner=${f.owner.id}`, ok: 429 }),
  },
  "DELETE /api/team/invitations/:id": {
    action: "members.manage",
    call: async (f) => ({ path: `/api/team/invitations/${await invitation(f)}?owner=${f.owner.id}` }),
  },
  "GET /api/team/audit": { action: "audit.view", call: async (f) => ({ path: `/api/team/audit?owner=${f.owner.id}` }) },
  "GET /api/team/audit.csv": { action: "audit.view", call: async (f) => ({ path: `/api/team/audit.csv?owner=${f.owner.id}` }) },
  "GET /api/team/audit.json": { action: "audit.view", call: async (f) => ({ path: `/api/team/audit.json?owner=${f.owner.id}` }) },
  "PATCH /api/team/members/:user_id": {
    action: "members.manage",
    call: async (f) => ({ path: `/api/team/members/${(await member(f.server, f.owner.id, "viewer")).id}?owner=${f.owner.id}`, body: { role: "member" } }),
  },
  "DELETE /api/team/members/:user_id": {
    action: "members.manage",
    call: async (f) => ({ path: `/api/team/members/${(await member(f.server, f.owner.id, "viewer")).id}?owner=${f.owner.id}` }),
  },
};

/** Routes under the team prefixes that act on the caller's own account only, each with why. */
const OWN_ACCOUNT: Record<string, string> = {
  "GET /api/links/country-source": "the server's country source, no account's data",
  "GET /api/team/policy": "the caller's own team's policy (security.manage: the owner's alone, no ?owner=)",
  "PUT /api/team/policy": "the caller's own team's policy (security.manage: the owner's alone, no ?owner=)",
};

/** The routes this test must cover: the links, tags, folders, UTM templates, shares, domains, webhooks, streams and team routes, and every route that takes ?owner=. */
function teamRoutes(server: TestServer): string[] {
  return [
    ...new Set(
      routesOf(server)
        .filter(
          (r) =>
            /^\/api\/(links|tags|folders|utm-templates|shares|team|domains|webhooks|streams)(\/|$|\.)/.test(r.url) ||
            (r.schema as { querystring?: { properties?: Record<string, unknown> } } | undefined)?.querystring?.properties?.owner !== undefined,
        )
        .filter((r) => !r.url.startsWith("/api/admin/") && r.method !== "HEAD")
        .map((r) => `${r.method} ${r.url}`),
    ),
  ];
}

/** The status and code of a request, leaving a live feed or a CSV at its headers. */
async function send(c: ApiClient, method: string, call: Call): Promise<{ status: number; code?: string; text: string; headers: Headers }> {
  if (method === "GET") {
    const res = await fetch(c.baseUrl + call.path, { headers: { cookie: c.cookie ?? "", accept: "application/json" } });
    if (!res.headers.get("content-type")?.startsWith("application/json")) {
      await res.body?.cancel();
      return { status: res.status, text: "", headers: res.headers };
    }
    const text = await res.text();
    return { status: res.status, code: (JSON.parse(text) as { code?: string }).code, text, headers: res.headers };
  }
  const r = await c.request(method, call.path, call.body);
  return { status: r.status, code: (r.body as { code?: string } | null)?.code, text: r.text, headers: r.headers };
}

describe.each(ENGINES)("the role table on every team route on %s", (engine) => {
  let server: TestServer;
  let f: Fixture;
  const clients = {} as Record<TeamRole, ApiClient>;

  beforeAll(async () => {
    // DNS goes to a closed local port: a domain's check answers "DNS not answering" at once, never the internet.
    server = await startTestServer({ engine, env: { DNS_SERVERS: "127.0.0.1:9" } });
    const owner = await testAccount(server, "roles-owner@example.com", "enterprise");
    f = { server, owner };
    clients.owner = owner.client;
    for (const role of ["admin", "member", "viewer"] as const) clients[role] = (await member(server, owner.id, role)).client;
  });
  afterAll(async () => server?.close());

  it("covers every route that acts on a team's data (add a line to ROUTES or OWN_ACCOUNT for a new one)", () => {
    const routes = teamRoutes(server);
    expect(routes.filter((r) => !(r in ROUTES) && !(r in OWN_ACCOUNT))).toEqual([]);
    expect(Object.keys(ROUTES).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it("answers each role as the table says: allowed -> success, refused -> 403 forbidden and nothing written", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const [key, route] of Object.entries(ROUTES)) {
      const method = key.split(" ")[0]!;
      for (const role of TEAM_ROLES) {
        const call = await route.call(f);
        const allowed = ROLE_ACTIONS[role].has(route.action);
        const before = method === "GET" ? null : await rowCounts(server);
        const a = await send(clients[role], method, call);
        expectContract(a, `${role} ${key}`);
        const after = before === null ? null : await rowCounts(server);
        const wrote = before !== null && JSON.stringify(before) !== JSON.stringify(after);
        const done = call.done ? await call.done() : allowed;
        outcomes.push(
          `${role} ${key}: ${a.status}${a.status >= 400 && a.status !== 429 ? ` ${a.code}` : ""}${!allowed && wrote ? " (wrote)" : ""}${done !== allowed ? ` (done: ${done})` : ""}`,
        );
        expected.push(`${role} ${key}: ${allowed ? (call.ok ?? 200) : "403 forbidden"}`);
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it("a viewer changes nothing, a member deletes nothing of the owner's, an admin manages members but not the owner", () => {
    // The table itself, read the way the issue states it.
    const writes: TeamAction[] = [
      "links.create",
      "links.edit",
      "links.delete",
      "labels.manage",
      "domains.manage",
      "webhooks.manage",
      "members.manage",
      "security.manage",
    ];
    expect(writes.filter((a) => ROLE_ACTIONS.viewer.has(a))).toEqual([]);
    expect(ROLE_ACTIONS.member.has("links.delete")).toBe(false);
    expect(ROLE_ACTIONS.member.has("labels.manage")).toBe(false);
    expect(ROLE_ACTIONS.admin.has("members.manage")).toBe(true);
    expect(ROLE_ACTIONS.admin.has("security.manage")).toBe(false);
  });
});
