// Every route under /api/admin/ (found in app.routeList, so routes added later are walked too) refuses a
// signed-out client with 401 and anyone but an active operator with 403 whatever the body, changing nothing,
// on both engines; the documented routes exist; the audit log cannot be edited, even with raw SQL; and the
// command line's operator flag (`snip user create --admin`, `snip user admin E on|off`) is audited.
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { Value } from "typebox/value";
import type { TSchema } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { snip } from "../helpers/cli.js";
import { concretePath, expectContract, rowCounts, routesOf } from "../helpers/routes.js";
import { type Account, account, auditRows, operator } from "../helpers/operator.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** "METHOD /api/admin/path/:param" for every route docs/operator.md names, by its section. */
function documentedRoutes(): Map<string, string> {
  const doc = readFileSync(join(ROOT, "docs", "operator.md"), "utf8");
  const found = new Map<string, string>();
  let section = "";
  for (const line of doc.split("\n")) {
    const h = /^###\s+(.*)$/.exec(line);
    if (h) section = h[1]!.trim();
    for (const m of line.matchAll(/`(GET|POST|PATCH|PUT|DELETE) (\/api\/admin\/[^\s?`]*)/g)) {
      found.set(`${m[1]} ${m[2]!.replace(/\{([a-z_]+)\}/g, ":$1")}`, section);
    }
  }
  return found;
}

describe.each(ENGINES)("operator routes on %s", (engine) => {
  let server: TestServer;
  let ops: Account;
  let user: Account;
  let suspendedOps: Account;
  let anon: ApiClient;
  let victim: Account;
  let victimLink: { id: string; alias: string };

  beforeAll(async () => {
    server = await startTestServer({ engine });
    ops = await operator(server, "ops-routes@example.com");
    // An ordinary account on the plan with every capability, and an operator whose account is suspended.
    user = await account(server, "user-routes@example.com", { plan: "enterprise" });
    suspendedOps = await operator(server, "ops-suspended@example.com");
    await server.ctx.accounts.setStatus(suspendedOps.email, "suspended");
    anon = await new ApiClient(server.url).init();
    victim = await account(server, "victim-routes@example.com", { plan: "business" });
    victimLink = await createLink(victim.client, { url: "https://example.com/victim", alias: "routes-victim" });
  });
  afterAll(async () => server?.close());

  const adminRoutes = () => routesOf(server).filter((r) => r.url.startsWith("/api/admin/"));

  it("has the routes docs/operator.md names (a section's routes all, once any of its routes is built)", () => {
    const actual = new Set(adminRoutes().map((r) => `${r.method} ${r.url}`));
    expect(actual.size).toBeGreaterThanOrEqual(10);
    const documented = documentedRoutes();
    expect(documented.size).toBeGreaterThanOrEqual(17);
    // Sections other branches build (blocklist, reports) may not be here yet; a section with one route must have all.
    const built = new Set([...documented].filter(([r]) => actual.has(r)).map(([, section]) => section));
    const missing = [...documented].filter(([r, section]) => built.has(section) && !actual.has(r)).map(([r]) => r);
    expect(missing).toEqual([]);
    for (const r of [
      "GET /api/admin/overview",
      "GET /api/admin/accounts",
      "GET /api/admin/accounts/:id",
      "PATCH /api/admin/accounts/:id",
      "DELETE /api/admin/accounts/:id",
      "GET /api/admin/links",
      "POST /api/admin/links/:id/disable",
      "POST /api/admin/links/:id/enable",
      "POST /api/admin/links/disable-bulk",
      "GET /api/admin/audit",
    ]) {
      expect(actual.has(r), r).toBe(true);
      expect(documented.has(r), `${r} in docs/operator.md`).toBe(true);
    }
    // Every one has an OpenAPI entry under the operator tag.
    for (const r of adminRoutes()) expect((r.schema as { tags?: string[] } | undefined)?.tags, `${r.method} ${r.url}`).toEqual(["operator"]);
  });

  /** Real targets, so that a request let through would change something visible. */
  function pathOf(url: string): string {
    const id = url.startsWith("/api/admin/accounts/") ? victim.id : url.startsWith("/api/admin/links/") ? victimLink.id : "x1";
    return concretePath(url, { id, host: "example.com", user_id: victim.id, owner_id: victim.id });
  }
  function bodyOf(method: string, url: string, schema: TSchema | undefined): unknown {
    if (method === "PATCH" && url === "/api/admin/accounts/:id") return { status: "suspended", plan: "free" };
    if (method === "DELETE" && url === "/api/admin/accounts/:id") return { confirm_email: victim.email };
    if (url === "/api/admin/links/:id/disable") return { reason: "let through", status: 451 };
    if (url === "/api/admin/links/disable-bulk") return { owner_id: victim.id, reason: "let through" };
    return schema ? Value.Create(schema) : undefined;
  }

  it("answers every admin route 401 signed out and 403 to an ordinary user and to a suspended operator, whatever the body; changes nothing", async () => {
    const before = await rowCounts(server);
    const victimBefore = await server.ctx.storage.db.selectFrom("users").select(["plan", "status"]).where("id", "=", victim.id).executeTakeFirstOrThrow();
    const results: string[] = [];
    const expected: string[] = [];
    for (const r of adminRoutes()) {
      const path = pathOf(r.url);
      const body = bodyOf(r.method, r.url, (r.schema as { body?: TSchema } | undefined)?.body);
      for (const [who, client, status, code] of [
        ["signed out", anon, 401, "unauthenticated"],
        ["user", user.client, 403, "forbidden"],
        ["suspended operator", suspendedOps.client, 403, "forbidden"],
      ] as const) {
        for (const payload of r.method === "GET" ? [undefined] : [body, { bogus: "\u0000".repeat(3) }, "not json"]) {
          const res = await client.request(r.method, path, payload, typeof payload === "string" ? { "content-type": "application/json" } : {});
          expectContract(res, `${r.method} ${path} ${who}`);
          results.push(`${r.method} ${r.url} ${who} ${JSON.stringify(payload)?.slice(0, 40)} -> ${res.status} ${res.body?.code}`);
          expected.push(`${r.method} ${r.url} ${who} ${JSON.stringify(payload)?.slice(0, 40)} -> ${status} ${code}`);
        }
      }
    }
    expect(results).toEqual(expected);
    expect(await rowCounts(server)).toEqual(before);
    expect(await server.ctx.storage.db.selectFrom("users").select(["plan", "status"]).where("id", "=", victim.id).executeTakeFirstOrThrow()).toEqual(
      victimBefore,
    );
    expect((await victim.client.get(`/api/links/${victimLink.id}`)).body.link.disabled).toBeNull();
    expect((await fetch(`${server.url}/${victimLink.alias}`, { redirect: "manual" })).status).toBe(302);

    // The operator does get through (the routes are real): each GET answers 200.
    for (const r of adminRoutes().filter((x) => x.method === "GET" && !x.url.includes(":"))) {
      expect((await ops.client.get(r.url)).status, r.url).toBe(200);
    }
    // A suspended operator is an operator again once active.
    await server.ctx.accounts.setStatus(suspendedOps.email, "active");
    expect((await suspendedOps.client.get("/api/admin/overview")).status).toBe(200);
    await server.ctx.accounts.setStatus(suspendedOps.email, "suspended");
  });

  it("refuses UPDATE and DELETE on admin_audit, even as raw SQL", async () => {
    expect((await ops.client.patch(`/api/admin/accounts/${victim.id}`, { plan: "pro" })).status).toBe(200);
    const [entry] = await auditRows(server, 1);
    expect(entry?.action).toBe("account.plan");
    const db = server.ctx.storage.db;
    await expect(sql`UPDATE admin_audit SET summary = 'edited', actor_email = 'nobody' WHERE id = ${entry!.id}`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM admin_audit WHERE id = ${entry!.id}`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM admin_audit`.execute(db)).rejects.toThrow(/append-only/);
    await expect(db.updateTable("admin_audit").set({ after: null }).execute()).rejects.toThrow(/append-only/);
    const [after] = await auditRows(server, 1);
    expect(after).toEqual(entry);
  });
});

describe.each(ENGINES)("operator flag from the command line on %s", (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), "snip-cli-admin-"));
  let env: Record<string, string> = { DATA_DIR: dataDir };
  let drop: (() => Promise<void>) | null = null;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    if (engine === "postgres") {
      const db = await createTestDatabase("postgres");
      env = { ...env, DATABASE_URL: db.databaseUrl! };
      drop = db.drop;
    }
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await drop?.();
  });

  it("snip user create --admin and snip user admin E on|off set the flag, audited as the command line", async () => {
    const created = snip(["user", "create", "--email", "Boss@example.com", "--password", "correct horse 1", "--admin", "--verified"], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created boss@example.com \(free, verified, operator\) id=\w+\n$/);
    expect(snip(["user", "create", "--email", "plain@example.com", "--password", "correct horse 1", "--verified"], env).code).toBe(0);
    expect(snip(["user", "admin", "plain@example.com", "on"], env)).toMatchObject({ code: 0, stdout: "plain@example.com: operator on\n" });
    expect(snip(["user", "admin", "plain@example.com", "off"], env)).toMatchObject({ code: 0, stdout: "plain@example.com: operator off\n" });
    expect(snip(["user", "admin", "ghost@example.com", "maybe"], env)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('snip: state must be on or off, got "maybe"\n'),
    });

    const server = await startTestServer(engine === "postgres" ? { databaseUrl: env.DATABASE_URL, dataDir } : { dataDir });
    servers.push(server);
    const boss = new ApiClient(server.url);
    const login = await boss.login("boss@example.com", "correct horse 1");
    expect(login.body.user.is_admin).toBe(true);
    const plain = new ApiClient(server.url);
    expect((await plain.login("plain@example.com", "correct horse 1")).body.user.is_admin).toBe(false);
    expect((await plain.get("/api/admin/overview")).status).toBe(403);

    const audit = await boss.get("/api/admin/audit?action=account.admin");
    expect(audit.status, audit.text).toBe(200);
    const ids = Object.fromEntries((await server.ctx.storage.db.selectFrom("users").select(["email", "id"]).execute()).map((u) => [u.email, u.id]));
    expect(audit.body.entries.map((e: Record<string, unknown>) => ({ ...e, id: undefined, at: undefined }))).toEqual([
      {
        id: undefined,
        at: undefined,
        actor_id: null,
        actor_email: "command line",
        actor_role: "system",
        action: "account.admin",
        target_type: "account",
        target_id: ids["plain@example.com"],
        summary: "plain@example.com no longer an operator",
        before: { is_admin: true },
        after: { is_admin: false },
      },
      {
        id: undefined,
        at: undefined,
        actor_id: null,
        actor_email: "command line",
        actor_role: "system",
        action: "account.admin",
        target_type: "account",
        target_id: ids["plain@example.com"],
        summary: "plain@example.com made an operator",
        before: { is_admin: false },
        after: { is_admin: true },
      },
      {
        id: undefined,
        at: undefined,
        actor_id: null,
        actor_email: "command line",
        actor_role: "system",
        action: "account.admin",
        target_type: "account",
        target_id: ids["boss@example.com"],
        summary: "boss@example.com made an operator",
        before: { is_admin: false },
        after: { is_admin: true },
      },
    ]);
    expect((await boss.get("/api/admin/audit?actor=COMMAND")).body.entries).toHaveLength(3);
  }, 300_000);
});
