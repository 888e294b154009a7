// Single sign-on (docs/sso.md) against a real OpenID provider on loopback (oidc-provider, its login and consent
// completed programmatically): an Enterprise connection (set, domain proved by a TXT record on a real DNS server,
// sign-in creating the team member, require SSO, the member allowance, operators' view and removal) and the
// instance-wide provider (operator role granted and taken away by a claim, OIDC_ONLY with break-glass accounts);
// refusals: another audience, another issuer, a replayed state or nonce, an unverified email, another browser;
// hostile issuers. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns } from "../helpers/dns.js";
import { Browser, TestOidc, throughProvider } from "../helpers/oidc.js";
import { auditRows } from "../helpers/operator.js";
import { setOperator } from "../../src/admin/operators.js";
import { CLI_ACTOR } from "../../src/admin/audit-log.js";

const SECRET = "enterprise-client-secret-0123456789";
const INSTANCE_SECRET = "instance-client-secret-0123456789";

describe.each(ENGINES)("single sign-on on %s", (engine) => {
  let dns: TestDns;
  let idp: TestOidc;
  let ent: TestServer;
  let inst: TestServer;
  let strict: TestServer;
  let owner: ApiClient;

  const callback = (s: TestServer) => `${s.url}/api/auth/sso/callback`;

  beforeAll(async () => {
    dns = await TestDns.start();
    const idpPort = await freePort();
    const issuer = `http://127.0.0.1:${idpPort}`;
    // WEBHOOK_ALLOW_PRIVATE: the Enterprise provider on loopback (the address guard's test-only setting).
    ent = await startTestServer({ engine, env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: "true", ENTERPRISE_MEMBERS_MAX: "3" } });
    inst = await startTestServer({
      engine,
      env: {
        OIDC_ISSUER: issuer,
        OIDC_CLIENT_ID: "snip-instance",
        OIDC_CLIENT_SECRET: INSTANCE_SECRET,
        OIDC_NAME: "Corp ID",
        OIDC_OPERATOR_CLAIM: "groups",
        OIDC_OPERATOR_VALUE: "snip-admins",
        OIDC_ONLY: "true",
      },
    });
    strict = await startTestServer({ engine: "sqlite", env: { DNS_SERVERS: dns.address } });
    idp = await TestOidc.start(idpPort, [
      { client_id: "snip-ent", client_secret: SECRET, redirect_uris: [callback(ent)] },
      { client_id: "snip-instance", client_secret: INSTANCE_SECRET, redirect_uris: [callback(inst)] },
    ]);
    idp.accounts.set("alice", { email: "Alice@Acme.test", email_verified: true, name: "Alice A." });
    idp.accounts.set("bob", { email: "bob@acme.test", email_verified: true });
    idp.accounts.set("dave", { email: "dave@acme.test", email_verified: true });
    idp.accounts.set("erin", { email: "erin@acme.test", email_verified: true });
    idp.accounts.set("mallory", { email: "mallory@acme.test", email_verified: false });
    idp.accounts.set("outsider", { email: "outsider@elsewhere.test", email_verified: true });
    idp.accounts.set("ops", { email: "ops@corp.test", email_verified: true, groups: ["staff", "snip-admins"] });
    idp.accounts.set("staff", { email: "staff@corp.test", email_verified: true, groups: ["staff"] });
    owner = await signedInClient(ent, "owner@owner.test", "enterprise");
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ent?.close(), inst?.close(), strict?.close()]);
    await idp?.close();
    await dns?.close();
  });

  /** Starts at snip, signs in at the provider; the callback URL and the browser, the callback not yet opened. */
  async function toCallback(server: TestServer, start: string, login: string, browser = new Browser()) {
    const res = await browser.fetch(`${server.url}/api/auth/sso/start?${start}`);
    expect(res.status, await res.clone().text()).toBe(302);
    const auth = res.headers.get("location") as string;
    expect(auth.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    return { browser, auth, url: await throughProvider(browser, auth, login, callback(server)) };
  }

  /** The whole sign-in; the callback's answer (JSON when refused) and the browser. */
  async function signIn(server: TestServer, start: string, login: string) {
    const { browser, url } = await toCallback(server, start, login);
    const res = await browser.fetch(url, { headers: { accept: "application/json" } });
    return { res, browser, url, body: res.status === 302 ? null : ((await res.json()) as { code: string; reason?: string }) };
  }

  async function sessionOf(server: TestServer, browser: Browser) {
    const r = await browser.fetch(`${server.url}/api/auth/session`);
    return ((await r.json()) as { user: { email: string; is_admin: boolean; email_verified: boolean } | null }).user;
  }

  const putConnection = (client: ApiClient, body: Record<string, unknown>) =>
    client.put("/api/sso", { issuer: idp.issuer, client_id: "snip-ent", client_secret: SECRET, domains: ["acme.test"], ...body });

  it("sets an Enterprise connection: the secret sealed and never returned, the domain pending with its TXT record; other plans get 403", async () => {
    const biz = await signedInClient(ent, "biz@biz.test", "business");
    const refused = await putConnection(biz, {});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "plan_required", required_plan: "enterprise" });

    const r = await putConnection(owner, { domains: ["Acme.TEST."] });
    expect(r.status, r.text).toBe(200);
    expect(r.text).not.toContain(SECRET);
    const c = r.body.connection;
    expect(c).toMatchObject({ issuer: idp.issuer, client_id: "snip-ent", client_secret_set: true, require_sso: false, redirect_uri: callback(ent) });
    expect(c.domains).toHaveLength(1);
    expect(c.domains[0]).toMatchObject({ domain: "acme.test", status: "pending", verified_at: null, record: { type: "TXT", name: "_snip-sso.acme.test" } });
    expect(c.domains[0].record.value).toMatch(/^snip-sso=[0-9A-Za-z]{32}$/);
    const stored = await ent.ctx.storage.db.selectFrom("sso_connections").selectAll().executeTakeFirstOrThrow();
    expect(stored.client_secret_sealed).not.toContain(SECRET);
    expect(stored.client_secret_sealed).toMatch(/^v1\./);
    expect((await owner.get("/api/sso")).text).not.toContain(SECRET);

    // Not verified yet: no sign-in through it.
    const early = await new Browser().fetch(`${ent.url}/api/auth/sso/start?email=alice@acme.test`, { headers: { accept: "application/json" } });
    expect(early.status).toBe(404);

    const missing = await owner.post("/api/sso/domains/acme.test/verify");
    expect(missing.status).toBe(200);
    expect(missing.body.domain).toMatchObject({
      status: "pending",
      next_action: `No TXT record found at _snip-sso.acme.test: add it with the value ${c.domains[0].record.value}, then verify again.`,
    });
    await ent.ctx.storage.db.deleteFrom("rate_events").where("bucket", "like", "sso-verify:%acme.test").execute();
    dns.txt("_snip-sso.acme.test", [c.domains[0].record.value]);
    const ok = await owner.post("/api/sso/domains/acme.test/verify");
    expect(ok.body.domain).toMatchObject({ domain: "acme.test", status: "verified", next_action: null });
    // The throttle: once per 5 seconds per domain.
    expect((await owner.post("/api/sso/domains/acme.test/verify")).status).toBe(429);
    expect((await owner.post("/api/sso/domains/other.test/verify")).status).toBe(404);

    const actions = (await auditRows(ent, 10)).map((a) => a.action);
    expect(actions).toContain("sso.create");
    expect(actions).toContain("sso.domain_verified");
    const created = (await auditRows(ent, 10)).find((a) => a.action === "sso.create");
    expect(created?.after).toEqual({ protocol: "oidc", issuer: idp.issuer, client_id: "snip-ent", require_sso: false, domains: ["acme.test"] });
    expect(JSON.stringify(created)).not.toContain(SECRET);
  });

  it("signs in a person with a verified domain's address: created, verified, a member of the owner's team", async () => {
    const { res, browser } = await signIn(ent, "email=alice@acme.test", "alice");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/app");
    const user = await sessionOf(ent, browser);
    expect(user).toMatchObject({ email: "alice@acme.test", email_verified: true, is_admin: false });
    const team = await owner.get("/api/team");
    expect(team.body.members.map((m: { email: string }) => m.email)).toEqual(["alice@acme.test"]);
    // The state cookie is gone after use.
    expect(browser.cookie(ent.url, "snip_sso_state")).toBeUndefined();
    // Again: the same account, still one membership.
    const again = await signIn(ent, "email=alice@acme.test", "alice");
    expect(again.res.status).toBe(302);
    expect((await owner.get("/api/team")).body.members).toHaveLength(1);
    // Bound to the provider's subject: her new address at the provider still opens her account, and the account takes it...
    idp.accounts.set("alice", { email: "alice.smith@acme.test", email_verified: true });
    const renamed = await signIn(ent, "email=alice.smith@acme.test", "alice");
    expect(renamed.res.status).toBe(302);
    expect((await sessionOf(ent, renamed.browser))?.email).toBe("alice.smith@acme.test");
    // ...and her address, given to someone else at the provider, does not.
    idp.accounts.set("alice-2", { email: "alice.smith@acme.test", email_verified: true });
    const reused = await signIn(ent, "email=alice.smith@acme.test", "alice-2");
    expect([reused.res.status, reused.body?.code, reused.body?.reason]).toEqual([400, "sso_failed", "identity"]);
    expect(await sessionOf(ent, reused.browser)).toBeNull();
    idp.accounts.set("alice", { email: "Alice@Acme.test", email_verified: true, name: "Alice A." });
    const rows = await ent.ctx.storage.db.selectFrom("sso_identities").select(["issuer", "subject"]).execute();
    expect(rows).toEqual([{ issuer: idp.issuer, subject: "alice" }]);
  });

  it("refuses a replayed state, a callback in another browser, and a replayed nonce", async () => {
    const first = await signIn(ent, "email=bob@acme.test", "bob");
    expect(first.res.status).toBe(302);
    const replay = await first.browser.fetch(first.url, { headers: { accept: "application/json" } });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ code: "sso_failed", reason: "state" });

    // A callback link opened in a browser that did not start the sign-in (login CSRF).
    const { url } = await toCallback(ent, "email=bob@acme.test", "bob");
    const elsewhere = await new Browser().fetch(url, { headers: { accept: "application/json" } });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ code: "sso_failed", reason: "state" });
    // Without accept: JSON, back to the sign-in page with the code.
    const html = await new Browser().fetch(url);
    expect(html.status).toBe(302);
    expect(html.headers.get("location")).toBe("/app/login?sso_error=sso_failed&reason=state");

    // A nonce of an earlier sign-in put into a new one: the ID token carries the old nonce.
    const old = await toCallback(ent, "email=bob@acme.test", "bob");
    const oldNonce = new URL(old.auth).searchParams.get("nonce") as string;
    const browser = new Browser();
    const res = await browser.fetch(`${ent.url}/api/auth/sso/start?email=bob@acme.test`);
    const auth = new URL(res.headers.get("location") as string);
    expect(auth.searchParams.get("nonce")).not.toBe(oldNonce);
    auth.searchParams.set("nonce", oldNonce);
    const cb = await throughProvider(browser, auth.href, "bob", callback(ent));
    const refused = await browser.fetch(cb, { headers: { accept: "application/json" } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "sso_failed", reason: "nonce" });
    expect(await sessionOf(ent, browser)).toBeNull();
  });

  it("refuses an ID token for another audience or from another issuer, and an unverified email", async () => {
    try {
      idp.tamper = (c) => ({ ...c, aud: "another-app" });
      const aud = await signIn(ent, "email=dave@acme.test", "dave");
      expect(aud.res.status).toBe(400);
      expect(aud.body).toMatchObject({ code: "sso_failed", reason: "audience" });
      idp.tamper = (c) => ({ ...c, iss: "http://127.0.0.1:1" });
      const iss = await signIn(ent, "email=dave@acme.test", "dave");
      expect(iss.res.status).toBe(400);
      expect(iss.body).toMatchObject({ code: "sso_failed", reason: "issuer" });
    } finally {
      idp.tamper = null;
    }
    expect(await ent.ctx.accounts.byEmail("dave@acme.test")).toBeNull();

    const unverified = await signIn(ent, "email=mallory@acme.test", "mallory");
    expect(unverified.res.status).toBe(400);
    expect(unverified.body).toMatchObject({ code: "sso_failed", reason: "email_unverified" });
    expect(await ent.ctx.accounts.byEmail("mallory@acme.test")).toBeNull();

    // The provider vouches for an address outside the connection's domains: refused.
    const b2 = new Browser();
    const start = await b2.fetch(`${ent.url}/api/auth/sso/start?email=dave@acme.test`);
    const cb = await throughProvider(b2, start.headers.get("location") as string, "outsider", callback(ent));
    const outside = await b2.fetch(cb, { headers: { accept: "application/json" } });
    expect(await outside.json()).toMatchObject({ code: "sso_failed", reason: "domain" });
    expect(await ent.ctx.accounts.byEmail("outsider@elsewhere.test")).toBeNull();
  });

  it("keeps single sign-on members within ENTERPRISE_MEMBERS_MAX, and invitations within 2 apart from them", async () => {
    // alice and bob joined through single sign-on: they do not use up the two invitations an owner may send.
    for (const email of ["inv-1@elsewhere.test", "inv-2@elsewhere.test"]) expect((await owner.post("/api/team/invitations", { email })).status).toBe(201);
    const third = await owner.post("/api/team/invitations", { email: "inv-3@elsewhere.test" });
    expect([third.status, third.body.code, third.body.limit]).toEqual([403, "limit_reached", 2]);
    // Nor do the two pending invitations hold back single sign-on: with 3 allowed, dave joins (a third member
    // beyond the two collaborators) and erin is refused.
    expect((await signIn(ent, "email=dave@acme.test", "dave")).res.status).toBe(302);
    const erin = await signIn(ent, "email=erin@acme.test", "erin");
    expect(erin.res.status).toBe(403);
    expect(erin.body).toMatchObject({ code: "limit_reached", limit: 3 });
    const team = (await owner.get("/api/team")).body;
    expect(team.members.map((m: { email: string; joined_by: string }) => `${m.email} ${m.joined_by}`).sort()).toEqual([
      // alice's provider gave her a new address in an earlier test; her account followed it.
      "alice.smith@acme.test sso",
      "bob@acme.test sso",
      "dave@acme.test sso",
    ]);
    expect(team.invitations).toHaveLength(2);
    expect(team.collaborators_max).toBe(2);
  });

  it("require SSO refuses password sign-in and sign-up for the domain's addresses, not the owner's", async () => {
    await ent.ctx.accounts.create({ email: "pat@acme.test", password: "correct horse 1", verified: true });
    const before = await new ApiClient(ent.url).login("pat@acme.test");
    expect(before.status).toBe(200);
    const r = await owner.put("/api/sso", { issuer: idp.issuer, client_id: "snip-ent", domains: ["acme.test"], require_sso: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.connection).toMatchObject({ require_sso: true, client_secret_set: true });
    const refused = await new ApiClient(ent.url).login("pat@acme.test");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("sso_required");
    const signup = await new ApiClient(ent.url).signup("newbie@acme.test");
    expect(signup.status).toBe(403);
    expect(signup.body.code).toBe("sso_required");
    expect((await new ApiClient(ent.url).login("owner@owner.test")).status).toBe(200);
    // The kept secret still signs in (PUT without client_secret kept it).
    expect((await signIn(ent, "email=alice@acme.test", "alice")).res.status).toBe(302);
  });

  it("refuses hostile and malformed input: issuers, domains, start addresses", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ issuer: "not a url" }, "issuer"],
      [{ issuer: "ftp://idp.example.com" }, "issuer"],
      [{ issuer: "http://idp.example.com" }, "issuer"],
      [{ issuer: "https://169.254.169.254/" }, "issuer"],
      [{ issuer: "https://u:p@idp.example.com/" }, "issuer"],
      [{ issuer: "https://[fe80::1]/" }, "issuer"],
      [{ issuer: "x".repeat(501) }, "issuer"],
      [{ domains: [] }, "domains"],
      [{ domains: ["127.0.0.1"] }, "domains.0"],
      [{ domains: ["a b.test"] }, "domains.0"],
      [{ client_id: "" }, "client_id"],
      [{ client_id: "bad\u0000id" }, "client_id"],
      [{ surprise: 1 }, "surprise"],
    ];
    for (const [body, field] of cases) {
      const r = await putConnection(owner, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const fields: string[] = r.body.details?.map((d: { field: string }) => d.field.replace(/^body\./, "")) ?? [];
      expect(fields, JSON.stringify(body)).toContain(field);
    }
    // The Enterprise issuer on loopback without the test-only setting: refused; the instance's own provider may be anywhere.
    const strictOwner = await signedInClient(strict, "o@strict.test", "enterprise");
    for (const issuer of ["http://127.0.0.1:9/", "https://127.0.0.1/", "https://localhost.localdomain/", "https://10.1.2.3/"]) {
      const r = await strictOwner.put("/api/sso", { issuer, client_id: "x", client_secret: "y", domains: ["strict.test"] });
      expect(r.status, issuer).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    const starts = ["email=", "email=not-an-email", `email=${"a".repeat(300)}@acme.test`, "instance=2", "", "email=someone@nowhere.test"];
    for (const q of starts) {
      const r = await new Browser().fetch(`${ent.url}/api/auth/sso/start?${q}`, { headers: { accept: "application/json" } });
      expect([400, 404], q).toContain(r.status);
    }
    // A second owner cannot take a domain another connection holds.
    const other = await signedInClient(ent, "other@other.test", "enterprise");
    const taken = await putConnection(other, {});
    expect(taken.status).toBe(409);
    const cb = await new Browser().fetch(`${ent.url}/api/auth/sso/callback?code=x&state=${"s".repeat(201)}`, { headers: { accept: "application/json" } });
    expect(cb.status).toBe(400);
    // Starting sign-ins is throttled per client address (each writes a row and may ask the provider).
    const now = Date.now();
    await strict.ctx.storage.db
      .insertInto("rate_events")
      .values(Array.from({ length: 60 }, () => ({ bucket: "sso-start:ip:127.0.0.1", at: now })))
      .execute();
    const throttled = await new Browser().fetch(`${strict.url}/api/auth/sso/start?email=a@strict.test`, { headers: { accept: "application/json" } });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(500);
    expect(((await throttled.json()) as { code: string }).code).toBe("rate_limited");
  });

  it("checks verified domains again: a TXT record gone ends the verification (audited) until it is verified again", async () => {
    const db = ent.ctx.storage.db;
    const row = () =>
      db.selectFrom("sso_domains").select(["status", "next_check_at", "next_action"]).where("domain", "=", "acme.test").executeTakeFirstOrThrow();
    const due = () => db.updateTable("sso_domains").set({ next_check_at: 1 }).where("domain", "=", "acme.test").execute();
    const record = (await owner.get("/api/sso")).body.connection.domains[0].record;
    await due();
    expect(await ent.ctx.sso.domains.recheckDue()).toBe(1);
    expect(await row()).toMatchObject({ status: "verified", next_action: null });
    expect(Number((await row()).next_check_at)).toBeGreaterThan(Date.now() + 59 * 60_000);
    // Not due: nothing to do.
    expect(await ent.ctx.sso.domains.recheckDue()).toBe(0);

    // Gone: still verified for a 72-hour grace (test/api/sso-claims.test.ts follows it with a clock), then pending.
    dns.txt(record.name, null);
    await due();
    expect(await ent.ctx.sso.domains.recheckDue()).toBe(1);
    expect((await row()).status).toBe("verified");
    await db
      .updateTable("sso_domains")
      .set({ failing_since: Date.now() - 73 * 3_600_000 })
      .where("domain", "=", "acme.test")
      .execute();
    await due();
    expect(await ent.ctx.sso.domains.recheckDue()).toBe(1);
    const lost = await row();
    expect(lost.status).toBe("pending");
    expect(lost.next_action).toBe(
      `Verification lost: No TXT record found at ${record.name}: add it with the value ${record.value}, then verify again. Nobody signs in through this domain until it is verified again.`,
    );
    expect((await auditRows(ent, 1))[0]).toMatchObject({ action: "sso.domain_lost", target_type: "sso_connection" });
    const start = await new Browser().fetch(`${ent.url}/api/auth/sso/start?email=alice@acme.test`, { headers: { accept: "application/json" } });
    expect(start.status).toBe(404);
    expect(await ent.ctx.sso.domains.recheckDue()).toBe(0);

    dns.txt(record.name, [record.value]);
    await db.deleteFrom("rate_events").where("bucket", "like", "sso-verify:%acme.test").execute();
    expect((await owner.post("/api/sso/domains/acme.test/verify")).body.domain).toMatchObject({ status: "verified", next_action: null });
  });

  it("lets operators see and remove a connection (audited); the owner removes theirs", async () => {
    const op = await signedInClient(ent, "op@ops.test");
    await setOperator({ db: ent.ctx.storage.db, clock: ent.ctx.clock, audit: ent.ctx.audit }, CLI_ACTOR, "op@ops.test", true);
    expect((await owner.get("/api/admin/sso")).status).toBe(403);
    const list = await op.get("/api/admin/sso");
    expect(list.status).toBe(200);
    expect(list.body.connections).toHaveLength(1);
    expect(list.body.connections[0]).toMatchObject({
      owner_email: "owner@owner.test",
      issuer: idp.issuer,
      require_sso: true,
      domains: [{ domain: "acme.test", status: "verified" }],
    });
    expect(list.text).not.toContain("sealed");
    const removed = await op.delete(`/api/admin/sso/${list.body.connections[0].id}`);
    expect(removed.status).toBe(200);
    const entry = (await auditRows(ent, 1))[0];
    expect(entry).toMatchObject({ action: "sso.delete", actor_email: "op@ops.test", target_type: "sso_connection" });
    expect((await owner.get("/api/sso")).body.connection).toBeNull();
    // Members stay members; password sign-in is back.
    expect((await owner.get("/api/team")).body.members).toHaveLength(3);
    expect((await new ApiClient(ent.url).login("pat@acme.test")).status).toBe(200);
    expect((await op.delete(`/api/admin/sso/${list.body.connections[0].id}`)).status).toBe(404);
    expect((await owner.delete("/api/sso")).status).toBe(404);
  });

  it("instance-wide: the button, OIDC_ONLY, and the operator role granted and taken away by the claim", async () => {
    const options = await new ApiClient(inst.url).get("/api/auth/sso/options");
    expect(options.body).toEqual({ status: "success", instance: { name: "Corp ID" }, password_sign_in: false, password_sign_up: false, email_sso: false });
    expect((await new ApiClient(ent.url).get("/api/auth/sso/options")).body).toEqual({
      status: "success",
      instance: null,
      password_sign_in: true,
      password_sign_up: true,
      email_sso: false,
    });

    const first = await signIn(inst, "instance=1", "ops");
    expect(first.res.status).toBe(302);
    expect(await sessionOf(inst, first.browser)).toMatchObject({ email: "ops@corp.test", is_admin: true });
    const granted = (await auditRows(inst, 1))[0];
    expect(granted).toMatchObject({ action: "account.admin", actor_email: "identity provider (OIDC_OPERATOR_CLAIM)", after: { is_admin: true } });

    idp.accounts.set("ops", { email: "ops@corp.test", email_verified: true, groups: ["staff"] });
    const second = await signIn(inst, "instance=1", "ops");
    expect(second.res.status).toBe(302);
    expect(await sessionOf(inst, second.browser)).toMatchObject({ email: "ops@corp.test", is_admin: false });
    expect((await auditRows(inst, 1))[0]).toMatchObject({ action: "account.admin", after: { is_admin: false } });

    const staff = await signIn(inst, "instance=1", "staff");
    expect(await sessionOf(inst, staff.browser)).toMatchObject({ email: "staff@corp.test", is_admin: false });

    const unverified = await signIn(inst, "instance=1", "mallory");
    expect(unverified.body).toMatchObject({ code: "sso_failed", reason: "email_unverified" });
    try {
      idp.tamper = (c) => ({ ...c, aud: "snip-ent" });
      expect((await signIn(inst, "instance=1", "staff")).body).toMatchObject({ code: "sso_failed", reason: "audience" });
    } finally {
      idp.tamper = null;
    }
    const replay = await staff.browser.fetch(staff.url, { headers: { accept: "application/json" } });
    expect(await replay.json()).toMatchObject({ code: "sso_failed", reason: "state" });
  });

  it("OIDC_ONLY: password sign-up and sign-in refused but for operators' break-glass accounts", async () => {
    expect((await new ApiClient(inst.url).signup("new@corp.test")).body.code).toBe("sso_required");
    await inst.ctx.accounts.create({ email: "user@corp.test", password: "correct horse 1", verified: true });
    await inst.ctx.accounts.create({ email: "admin@corp.test", password: "correct horse 1", verified: true, admin: true });
    const glass = await inst.ctx.accounts.create({ email: "glass@corp.test", password: "correct horse 1", verified: true, admin: true });
    await inst.ctx.sso.policy.markBreakGlass(glass.id);
    const user = await new ApiClient(inst.url).login("user@corp.test");
    expect(user.status).toBe(403);
    expect(user.body.code).toBe("sso_required");
    expect((await new ApiClient(inst.url).login("admin@corp.test")).body.code).toBe("sso_required");
    // A wrong password is still just wrong (nothing tells which accounts are break-glass ones).
    expect((await new ApiClient(inst.url).login("glass@corp.test", "wrong password 1")).body.code).toBe("invalid_credentials");
    const ok = await new ApiClient(inst.url).login("glass@corp.test");
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ email: "glass@corp.test", is_admin: true });
  });
});
