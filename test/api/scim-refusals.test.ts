// What SCIM refuses (docs/scim.md, Refusals), each in SCIM's error schema and never a 5xx, with nothing written:
// no token, a wrong or replaced or revoked token, another connection's token, a team off Enterprise, malformed
// filters, bodies that are not JSON, not objects, oversized, or name unknown schemas, addresses off the
// connection's verified domains, concurrent creations of one userName, and wrong tokens past the address's limit. The token's own routes: who may make,
// see and revoke it. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { GROUP, PATCH, USER, scim, scimError, scimTeam, type ScimTeam } from "../helpers/scim.js";
import { SCIM_BODY_LIMIT } from "../../src/http/routes/scim.js";
import { BAD_KEYS_PER_IP } from "../../src/accounts/api-abuse.js";

describe.each(ENGINES)("SCIM refusals on %s", (engine) => {
  let server: TestServer;
  let a: ScimTeam;
  let b: ScimTeam;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    a = await scimTeam(server, "refuse-a.test");
    b = await scimTeam(server, "refuse-b.test");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  const rows = async () => ({
    users: (await server.ctx.storage.db.selectFrom("scim_users").select("id").execute()).length,
    groups: (await server.ctx.storage.db.selectFrom("scim_groups").select("id").execute()).length,
    members: (await server.ctx.storage.db.selectFrom("team_members").select("member_id").execute()).length,
  });

  it("401 without a token, with a malformed or unknown one, with a session cookie only", async () => {
    for (const token of [null, "", "scim_short", `scim_${"A".repeat(43)}`, a.token.slice(0, -1) + (a.token.endsWith("a") ? "b" : "a")]) {
      const r = await scim(server, token, "GET", "/Users");
      expect(scimError(r), String(token)).toEqual([401, undefined]);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="snip SCIM"');
    }
    const withCookie = await fetch(`${server.url}/scim/v2/Users`, { headers: { cookie: a.owner.cookie! } });
    expect(withCookie.status).toBe(401);
    // Refused before the body is read.
    expect(scimError(await scim(server, null, "POST", "/Users", "x".repeat(SCIM_BODY_LIMIT * 2)))).toEqual([401, undefined]);
  });

  it("a replaced token is refused at once, the new one works; a revoked one too", async () => {
    const old = a.token;
    const state = await a.owner.get("/api/sso/scim-token");
    expect(state.body.scim).toMatchObject({ base_url: `${server.config.origin}/scim/v2`, token_set: true });
    expect(state.text).not.toContain(old);
    const made = await a.owner.post("/api/sso/scim-token");
    expect(made.status).toBe(200);
    expect(made.body.token).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    expect(made.body.token).not.toBe(old);
    a.token = made.body.token;
    expect(scimError(await scim(server, old, "GET", "/Users"))).toEqual([401, undefined]);
    expect((await scim(server, a.token, "GET", "/Users")).status).toBe(200);
    // Only the hash is stored.
    const stored = await server.ctx.storage.db
      .selectFrom("scim_tokens")
      .select("token_hash")
      .where("connection_id", "=", a.connectionId)
      .executeTakeFirstOrThrow();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.token_hash).not.toContain(a.token);
    const audit = await server.ctx.storage.db
      .selectFrom("admin_audit")
      .select(["action", "team_id"])
      .where("target_id", "=", a.connectionId)
      .orderBy("id")
      .execute();
    expect(audit.filter((x) => x.action === "sso.scim_token")).toEqual([
      { action: "sso.scim_token", team_id: a.ownerId },
      { action: "sso.scim_token", team_id: a.ownerId },
    ]);
    // Revoked: refused; revoking again is 404; a new one for the rest of the tests.
    expect((await a.owner.delete("/api/sso/scim-token")).status).toBe(200);
    expect(scimError(await scim(server, a.token, "GET", "/Users"))).toEqual([401, undefined]);
    expect((await a.owner.get("/api/sso/scim-token")).body.scim).toMatchObject({ token_set: false, token_created_at: null });
    expect((await a.owner.delete("/api/sso/scim-token")).body.code).toBe("not_found");
    a.token = (await a.owner.post("/api/sso/scim-token")).body.token;
  });

  it("the token routes: not on other plans, not without a connection, not without CSRF or a session", async () => {
    const business = await signedInClient(server, "biz@refuse.test", "business");
    const r = await business.post("/api/sso/scim-token");
    expect([r.status, r.body.code, r.body.required_plan]).toEqual([403, "plan_required", "enterprise"]);
    expect((await business.get("/api/sso/scim-token")).body.code).toBe("plan_required");
    const lone = await signedInClient(server, "lone@refuse.test", "enterprise");
    expect((await lone.post("/api/sso/scim-token")).body.code).toBe("not_found");
    const noCsrf = await fetch(`${server.url}/api/sso/scim-token`, { method: "POST", headers: { cookie: a.owner.cookie! } });
    expect(noCsrf.status).toBe(403);
    expect((await fetch(`${server.url}/api/sso/scim-token`)).status).toBe(401);
    // A member of the team (not the owner) has no connection of their own: 404, the owner's token untouched.
    expect((await scim(server, a.token, "GET", "/Users")).status).toBe(200);
  });

  it("another connection's token cannot see or touch this team's users and groups", async () => {
    const u = await scim(server, a.token, "POST", "/Users", { schemas: [USER], userName: "kim@refuse-a.test" });
    expect(u.status, u.text).toBe(201);
    const g = await scim(server, a.token, "POST", "/Groups", { schemas: [GROUP], displayName: "admin", members: [{ value: u.body.id }] });
    expect(g.status, g.text).toBe(201);
    const before = await rows();
    expect((await scim(server, b.token, "GET", "/Users")).body.totalResults).toBe(0);
    expect((await scim(server, b.token, "GET", `/Users?filter=${encodeURIComponent('userName eq "kim@refuse-a.test"')}`)).body.totalResults).toBe(0);
    for (const [method, path, body] of [
      ["GET", `/Users/${u.body.id}`, undefined],
      ["PUT", `/Users/${u.body.id}`, { schemas: [USER], userName: "kim@refuse-a.test", active: false }],
      ["PATCH", `/Users/${u.body.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] }],
      ["DELETE", `/Users/${u.body.id}`, undefined],
      ["GET", `/Groups/${g.body.id}`, undefined],
      ["PATCH", `/Groups/${g.body.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: "members" }] }],
      ["DELETE", `/Groups/${g.body.id}`, undefined],
    ] as const) {
      expect(scimError(await scim(server, b.token, method, path, body)), `${method} ${path}`).toEqual([404, undefined]);
    }
    // B's token cannot provision A's addresses, nor add A's user to its groups.
    expect(scimError(await scim(server, b.token, "POST", "/Users", { schemas: [USER], userName: "kim@refuse-a.test" }))).toEqual([400, "invalidValue"]);
    expect(scimError(await scim(server, b.token, "POST", "/Groups", { schemas: [GROUP], displayName: "x", members: [{ value: u.body.id }] }))).toEqual([
      400,
      "invalidValue",
    ]);
    expect(await rows()).toEqual(before);
    expect((await scim(server, a.token, "GET", `/Users/${u.body.id}`)).body.active).toBe(true);
  });

  it("malformed filters: 400 invalidFilter", async () => {
    for (const filter of [
      "userName",
      'userName co "x"',
      "userName eq x",
      'password eq "x"',
      'userName eq "x" or userName eq "y"',
      'userName eq "x" and',
      '(userName eq "x")',
      'userName eq "unterminated',
      `userName eq "${"x".repeat(1001)}"`,
      'members[value eq "x"] eq "y"',
    ]) {
      expect(scimError(await scim(server, a.token, "GET", `/Users?filter=${encodeURIComponent(filter)}`)), filter).toEqual([400, "invalidFilter"]);
    }
    expect(scimError(await scim(server, a.token, "GET", `/Groups?filter=${encodeURIComponent('userName eq "x"')}`))).toEqual([400, "invalidFilter"]);
    expect(
      (await scim(server, a.token, "GET", `/Users?filter=${encodeURIComponent('USERNAME EQ "kim@refuse-a.test" AND externalId eq "none"')}`)).body.totalResults,
    ).toBe(0);
    expect(scimError(await scim(server, a.token, "GET", "/Users?sortBy=userName"))).toEqual([400, "invalidSyntax"]);
    // Paging: startIndex below 1 reads as 1, count above 200 as 200, count 0 gives the total only.
    const page = await scim(server, a.token, "GET", "/Users?startIndex=-5&count=0");
    expect(page.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 0, Resources: [] });
  });

  it("bad bodies: not JSON, not an object, unknown or missing schemas, bad values, oversized, control characters; nothing written", async () => {
    const before = await rows();
    const cases: [unknown, string | undefined, [number, string | undefined]][] = [
      ["{not json", undefined, [400, "invalidSyntax"]],
      ["[1,2]", undefined, [400, "invalidSyntax"]],
      [{ userName: "no-schemas@refuse-a.test" }, undefined, [400, "invalidSyntax"]],
      [{ schemas: [USER, "urn:example:unknown"], userName: "x@refuse-a.test" }, undefined, [400, "invalidSyntax"]],
      [{ schemas: [GROUP], displayName: "x" }, undefined, [400, "invalidSyntax"]],
      [{ schemas: [USER] }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: 42 }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: "y".repeat(300) }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: "z@refuse-a.test", emails: "z" }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: "not-an-address" }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: "off@elsewhere.test" }, undefined, [400, "invalidValue"]],
      [{ schemas: [USER], userName: "c@refuse-a.test", displayName: "a\u0000b" }, undefined, [400, "invalidSyntax"]],
      [{ schemas: [USER], userName: "big@refuse-a.test", displayName: "x".repeat(SCIM_BODY_LIMIT) }, undefined, [413, undefined]],
      [{ schemas: [USER], userName: "t@refuse-a.test" }, "text/plain", [400, "invalidSyntax"]],
    ];
    for (const [body, type, want] of cases) {
      const r = await scim(server, a.token, "POST", "/Users", body, type);
      expect(scimError(r), JSON.stringify(body).slice(0, 80)).toEqual(want);
    }
    // Nested deeply.
    let deep: unknown = "x";
    for (let i = 0; i < 200; i++) deep = { a: deep };
    expect(scimError(await scim(server, a.token, "POST", "/Users", { schemas: [USER], userName: "d@refuse-a.test", name: deep })).at(0)).toBe(400);
    // Patch bodies.
    const id = (await scim(server, a.token, "GET", "/Users")).body.Resources[0].id;
    for (const body of [
      { schemas: [PATCH] },
      { schemas: [PATCH], Operations: [] },
      { schemas: [PATCH], Operations: [{ op: "remove" }] },
      { schemas: [PATCH], Operations: [{ op: "replace", value: "x" }] },
      { schemas: [PATCH], Operations: Array.from({ length: 101 }, () => ({ op: "replace", path: "displayName", value: "x" })) },
      { schemas: [USER], Operations: [{ op: "replace", value: { active: false } }] },
    ]) {
      expect(scimError(await scim(server, a.token, "PATCH", `/Users/${id}`, body)).at(0), JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect(await rows()).toEqual(before);
    expect((await scim(server, a.token, "GET", `/Users/${id}`)).body.active).toBe(true);
    expect(scimError(await scim(server, a.token, "GET", "/Nothing"))).toEqual([404, undefined]);
    expect(scimError(await scim(server, a.token, "GET", `/Users/${"x".repeat(300)}`)).at(0)).toBe(400);
  });

  it("concurrent creations of one userName: one 201, the others 409 uniqueness, one row", async () => {
    const body = { schemas: [USER], userName: "race@refuse-a.test" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => scim(server, a.token, "POST", "/Users", body)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) expect(scimError(r)).toEqual([409, "uniqueness"]);
    const stored = await server.ctx.storage.db.selectFrom("scim_users").select("id").where("user_name_key", "=", "race@refuse-a.test").execute();
    expect(stored).toHaveLength(1);
  });

  it("a team off Enterprise: 403, and its token provisions no one", async () => {
    await server.ctx.storage.db.updateTable("users").set({ plan: "business" }).where("id", "=", b.ownerId).execute();
    expect(scimError(await scim(server, b.token, "GET", "/Users"))).toEqual([403, undefined]);
    await server.ctx.storage.db.updateTable("users").set({ plan: "enterprise" }).where("id", "=", b.ownerId).execute();
    expect((await scim(server, b.token, "GET", "/Users")).status).toBe(200);
  });

  // Last: it uses up the test address's allowance.
  it("wrong tokens from one address: 429 with Retry-After past 60 in 10 minutes, counted apart from API keys; the right token still works", async () => {
    const counted = async () =>
      (await server.ctx.storage.db.selectFrom("rate_events").select("id").where("bucket", "=", "scim:badtoken:ip:127.0.0.1").execute()).length;
    const before = await counted();
    expect(before).toBeGreaterThan(0);
    for (let i = before; i < BAD_KEYS_PER_IP; i++) expect(scimError(await scim(server, `scim_${"B".repeat(43)}`, "GET", "/Users"))).toEqual([401, undefined]);
    const limited = await scim(server, `scim_${"B".repeat(43)}`, "GET", "/Users");
    expect(scimError(limited)).toEqual([429, undefined]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await counted()).toBe(BAD_KEYS_PER_IP);
    expect((await scim(server, a.token, "GET", "/Users")).status).toBe(200);
    expect(await server.ctx.storage.db.selectFrom("rate_events").select("id").where("bucket", "like", "api:badkey:%").execute()).toEqual([]);
  });
});
