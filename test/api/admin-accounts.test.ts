// The operator console's accounts (docs/operator.md, Accounts) on both engines: search, filters and paging
// with link and click totals; plan and status changes audited and followed at once (API keys, dashboard
// writes, team access); deletion of everything the self-deletion deletes, caches included; refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createLink } from "../helpers/links.js";
import { type Account, account, auditRows, operator } from "../helpers/operator.js";

describe.each(ENGINES)("operator console: accounts on %s", (engine) => {
  let server: TestServer;
  let ops: Account;
  let n = 0;
  const fresh = (plan = "free", prefix = "acct") => account(server, `${prefix}-${++n}@example.com`, { plan });

  beforeAll(async () => {
    // DNS goes to a closed local port: adding a custom domain never reaches the internet.
    server = await startTestServer({ engine, env: { DNS_SERVERS: "127.0.0.1:9" } });
    ops = await operator(server, "ops@example.com");
  });
  afterAll(async () => server?.close());

  async function visit(alias: string): Promise<number> {
    return (await fetch(`${server.url}/${alias}`, { redirect: "manual" })).status;
  }

  it("lists accounts newest first with link and click totals, searches the email, filters plan and status, pages", async () => {
    const a = await fresh("pro", "search_x");
    const b = await fresh("business", "search%y");
    const l1 = await createLink(a.client, { url: "https://example.com/a1", alias: `tot-a1-${n}` });
    await createLink(a.client, { url: "https://example.com/a2" });
    for (let i = 0; i < 3; i++) expect(await visit(l1.alias)).toBe(302);
    await server.ctx.clicks.flush();

    const one = await ops.client.get(`/api/admin/accounts/${a.id}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.account).toEqual({
      id: a.id,
      email: a.email,
      name: "",
      plan: "pro",
      status: "active",
      is_admin: false,
      email_verified: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_sign_in_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      links: 2,
      clicks: 3,
    });
    // Never signed in: null.
    await server.ctx.accounts.create({ email: "never@example.com", password: "correct horse 1" });
    const never = await ops.client.get("/api/admin/accounts?q=never@");
    expect(never.body.accounts).toMatchObject([{ email: "never@example.com", last_sign_in_at: null, links: 0, clicks: 0 }]);

    // Contains, case-insensitive; % and _ are literal characters, not patterns.
    expect((await ops.client.get("/api/admin/accounts?q=SEARCH")).body.accounts.map((x: { email: string }) => x.email)).toEqual([b.email, a.email]);
    expect((await ops.client.get(`/api/admin/accounts?q=${encodeURIComponent("search%")}`)).body.accounts.map((x: { email: string }) => x.email)).toEqual([
      b.email,
    ]);
    expect((await ops.client.get("/api/admin/accounts?q=search_")).body.accounts.map((x: { email: string }) => x.email)).toEqual([a.email]);
    expect((await ops.client.get("/api/admin/accounts?q=search&plan=business")).body.accounts.map((x: { id: string }) => x.id)).toEqual([b.id]);
    await server.ctx.accounts.setStatus(b.email, "suspended");
    expect((await ops.client.get("/api/admin/accounts?q=search&status=suspended")).body.accounts.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect((await ops.client.get("/api/admin/accounts?q=search&status=active")).body.accounts.map((x: { id: string }) => x.id)).toEqual([a.id]);
    await server.ctx.accounts.setStatus(b.email, "active");

    // Paging: every account exactly once, newest first.
    const all = (await ops.client.get("/api/admin/accounts?limit=100")).body.accounts.map((x: { id: string }) => x.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { accounts: Array<{ id: string }>; next_cursor: string | null } } = await ops.client.get(
        `/api/admin/accounts?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.accounts.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.accounts.map((x) => x.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(4);
  });

  it("suspends at once: the API key gets 403 account_inactive, dashboard writes 403; audited with before and after", async () => {
    const a = await fresh("business");
    const key = (await a.client.post("/api/keys", { name: "k" })).body.secret as string;
    const ext = (secret: string) =>
      fetch(`${server.url}/api/external-create.php`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/ext" }),
      });
    expect((await ext(key)).status).toBe(201);

    const r = await ops.client.patch(`/api/admin/accounts/${a.id}`, { status: "suspended" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.account).toMatchObject({ id: a.id, status: "suspended", plan: "business" });
    const refused = await ext(key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("account_inactive");
    const write = await a.client.post("/api/links", { url: "https://example.com/after" });
    expect([write.status, write.body.code]).toEqual([403, "account_inactive"]);

    const [entry] = await auditRows(server, 1);
    expect(entry).toMatchObject({
      actor_id: ops.id,
      actor_email: ops.email,
      action: "account.status",
      target_type: "account",
      target_id: a.id,
      summary: `${a.email}: suspended`,
      before: { status: "active" },
      after: { status: "suspended" },
    });
    // The same entry through the audit route.
    const listed = await ops.client.get(`/api/admin/audit?target=${a.id}`);
    expect(listed.body.entries[0]).toMatchObject({
      action: "account.status",
      actor_id: ops.id,
      actor_email: ops.email,
      before: { status: "active" },
      after: { status: "suspended" },
    });

    expect((await ops.client.patch(`/api/admin/accounts/${a.id}`, { status: "active" })).status).toBe(200);
    expect((await ext(key)).status).toBe(201);
    expect((await a.client.post("/api/links", { url: "https://example.com/again" })).status).toBe(201);
  });

  it("a downgrade from business to free suspends the team at once (active: false, no access to the links); audited", async () => {
    const owner = await fresh("business");
    const member = await fresh("free");
    // The membership itself (the invitation flow has tests of its own).
    await server.ctx.storage.db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: Date.now() }).execute();
    const link = await createLink(owner.client, { url: "https://example.com/team" });
    expect((await member.client.get(`/api/links/${link.id}`)).status).toBe(200);
    expect((await member.client.get("/api/team")).body.memberships).toMatchObject([{ owner_id: owner.id, active: true }]);

    const r = await ops.client.patch(`/api/admin/accounts/${owner.id}`, { plan: "free" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.account.plan).toBe("free");
    expect((await member.client.get("/api/team")).body.memberships).toMatchObject([{ owner_id: owner.id, active: false }]);
    expect((await member.client.get(`/api/links/${link.id}`)).status).toBe(404);
    expect((await member.client.get(`/api/links?owner=${owner.id}`)).status).toBe(404);
    const [entry] = await auditRows(server, 1);
    expect(entry).toMatchObject({
      actor_id: ops.id,
      actor_email: ops.email,
      action: "account.plan",
      target_type: "account",
      target_id: owner.id,
      summary: `${owner.email}: plan business -> free`,
      before: { plan: "business" },
      after: { plan: "free" },
    });

    // Both at once: two entries in one transaction; nothing changed: no entry.
    const count = async () => (await auditRows(server, 1000)).length;
    const before = await count();
    expect((await ops.client.patch(`/api/admin/accounts/${owner.id}`, { plan: "business", status: "suspended" })).status).toBe(200);
    expect((await auditRows(server, 2)).map((e) => [e.action, e.before, e.after])).toEqual([
      ["account.status", { status: "active" }, { status: "suspended" }],
      ["account.plan", { plan: "free" }, { plan: "business" }],
    ]);
    expect((await ops.client.patch(`/api/admin/accounts/${owner.id}`, { plan: "business", status: "suspended" })).status).toBe(200);
    expect(await count()).toBe(before + 2);
    expect((await ops.client.patch(`/api/admin/accounts/${owner.id}`, { status: "active" })).status).toBe(200);
    expect((await member.client.get(`/api/links/${link.id}`)).status).toBe(200);
  });

  it("refuses bad input with 400, unknown ids with 404, the operator's own suspension and downgrade with 409; writes nothing", async () => {
    const a = await fresh("pro");
    const entries = (await auditRows(server, 1000)).length;
    const expectError = async (p: Promise<{ status: number; body: { code?: string } }>, status: number, code: string) => {
      const r = await p;
      expect([r.status, r.body.code]).toEqual([status, code]);
    };
    const path = `/api/admin/accounts/${a.id}`;
    await expectError(ops.client.patch(path, {}), 400, "invalid_request");
    await expectError(ops.client.patch(path, { plan: "gold" }), 400, "invalid_request");
    await expectError(ops.client.patch(path, { status: "deleted" }), 400, "invalid_request");
    await expectError(ops.client.patch(path, { plan: "pro", is_admin: true }), 400, "invalid_request");
    await expectError(ops.client.patch(path, { plan: "pro\u0000" }), 400, "invalid_request");
    await expectError(ops.client.patch(path, { plan: "x".repeat(100_000) }), 400, "invalid_request");
    await expectError(ops.client.patch(path, { plan: null }), 400, "invalid_request");
    await expectError(ops.client.request("PATCH", path, "{not json", { "content-type": "application/json" }), 400, "invalid_request");
    await expectError(ops.client.patch("/api/admin/accounts/nobody", { plan: "pro" }), 404, "not_found");
    await expectError(ops.client.patch(`/api/admin/accounts/${"x".repeat(300)}`, { plan: "pro" }), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts/nobody"), 404, "not_found");
    await expectError(ops.client.get("/api/admin/accounts?plan=gold"), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?status=x"), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?limit=0"), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?limit=101"), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?cursor=bogus"), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?q=%00"), 400, "invalid_request");
    await expectError(ops.client.get(`/api/admin/accounts?q=${"a".repeat(300)}`), 400, "invalid_request");
    await expectError(ops.client.get("/api/admin/accounts?sort=email"), 400, "invalid_request");

    // Self: suspension and downgrade refused; an upgrade of one's own plan is fine.
    await expectError(ops.client.patch(`/api/admin/accounts/${ops.id}`, { status: "suspended" }), 409, "conflict");
    await server.ctx.accounts.setPlan(ops.email, "pro");
    await expectError(ops.client.patch(`/api/admin/accounts/${ops.id}`, { plan: "free" }), 409, "conflict");
    await expectError(ops.client.delete(`/api/admin/accounts/${ops.id}`, { confirm_email: ops.email }), 409, "conflict");
    expect((await auditRows(server, 1000)).length).toBe(entries);
    expect((await ops.client.get(`/api/admin/accounts/${ops.id}`)).body.account).toMatchObject({ plan: "pro", status: "active", is_admin: true });
    expect((await ops.client.get(path)).body.account).toMatchObject({ plan: "pro", status: "active" });
  });

  it("deletion needs confirm_email; deletes what the self-deletion deletes; the cached links answer 404 at once; audited", async () => {
    const victim = await fresh("business");
    const other = await fresh("business");
    const link = await createLink(victim.client, { url: "https://example.com/victim", alias: `victim-${n}` });
    const keep = await createLink(other.client, { url: "https://example.com/keep", alias: `keep-${n}` });
    for (let i = 0; i < 2; i++) expect(await visit(link.alias)).toBe(302);
    expect(await visit(keep.alias)).toBe(302);
    await server.ctx.clicks.flush();
    // Cached on this instance.
    expect(server.ctx.redirects.cache.peek("", link.alias)).toBeTruthy();
    expect((await victim.client.post("/api/keys", { name: "k" })).status).toBe(201);
    expect((await victim.client.post("/api/domains", { hostname: `victim-${n}.example` })).status).toBe(201);
    expect((await victim.client.post("/api/webhooks", { name: "w", url: "https://93.184.216.34/hook", kind: "custom" })).status).toBe(201);
    await server.ctx.storage.db.insertInto("team_members").values({ owner_id: victim.id, member_id: other.id, joined_at: Date.now() }).execute();
    const linkNum = Number((await server.ctx.storage.db.selectFrom("links").select("num").where("id", "=", link.id).executeTakeFirstOrThrow()).num);
    const entries = (await auditRows(server, 1000)).length;

    const path = `/api/admin/accounts/${victim.id}`;
    const missing = await ops.client.delete(path, {});
    expect([missing.status, missing.body.code]).toEqual([400, "invalid_request"]);
    const none = await ops.client.delete(path);
    expect([none.status, none.body.code]).toEqual([400, "invalid_request"]);
    const wrong = await ops.client.delete(path, { confirm_email: other.email });
    expect([wrong.status, wrong.body.code]).toEqual([400, "invalid_request"]);
    expect(wrong.body.details).toEqual([{ field: "confirm_email", message: "must be the account's email" }]);
    const extra = await ops.client.delete(path, { confirm_email: victim.email, force: true });
    expect([extra.status, extra.body.code]).toEqual([400, "invalid_request"]);
    expect((await ops.client.delete("/api/admin/accounts/nobody", { confirm_email: victim.email })).status).toBe(404);
    expect((await auditRows(server, 1000)).length).toBe(entries);
    expect(await visit(link.alias)).toBe(302);

    // The email is compared as an email: case and spaces around it do not matter.
    const r = await ops.client.delete(path, { confirm_email: ` ${victim.email.toUpperCase()} ` });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ status: "success" });
    // The cache forgot it at once: 404, not the cached redirect.
    expect(server.ctx.redirects.cache.peek("", link.alias)).toBeFalsy();
    expect(await visit(link.alias)).toBe(404);
    expect(await visit(keep.alias)).toBe(302);
    expect((await victim.client.get("/api/profile")).status).toBe(401);

    const db = server.ctx.storage.db;
    const left = {
      users: (await db.selectFrom("users").select("id").where("id", "=", victim.id).execute()).length,
      sessions: (await db.selectFrom("sessions").select("user_id").where("user_id", "=", victim.id).execute()).length,
      links: (await db.selectFrom("links").select("id").where("owner_id", "=", victim.id).execute()).length,
      clicks: (await db.selectFrom("clicks").select("id").where("link_num", "=", linkNum).execute()).length,
      click_daily: (await db.selectFrom("click_daily").select("link_id").where("link_id", "=", link.id).execute()).length,
      api_keys: (await db.selectFrom("api_keys").select("id").where("user_id", "=", victim.id).execute()).length,
      domains: (await db.selectFrom("domains").select("id").where("owner_id", "=", victim.id).execute()).length,
      webhooks: (await db.selectFrom("webhooks").select("id").where("owner_id", "=", victim.id).execute()).length,
      team_members: (await db.selectFrom("team_members").select("owner_id").where("owner_id", "=", victim.id).execute()).length,
    };
    expect(left).toEqual({ users: 0, sessions: 0, links: 0, clicks: 0, click_daily: 0, api_keys: 0, domains: 0, webhooks: 0, team_members: 0 });
    expect((await other.client.get("/api/profile")).status).toBe(200);

    const [entry] = await auditRows(server, 1);
    expect(entry).toMatchObject({
      actor_id: ops.id,
      actor_email: ops.email,
      action: "account.delete",
      target_type: "account",
      target_id: victim.id,
      summary: `${victim.email} deleted`,
      before: { email: victim.email, plan: "business", status: "active", links: 1, clicks: 2 },
      after: null,
    });
    expect((await ops.client.get(path)).status).toBe(404);
    expect((await ops.client.delete(path, { confirm_email: victim.email })).status).toBe(404);
  });
});
