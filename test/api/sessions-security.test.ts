// Sessions you can see and end, the new-browser email, and who must have a second factor (operators under
// OPERATOR_REQUIRE_2FA, members of an Enterprise team requiring it), on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { readOutbox } from "../helpers/mail.js";
import { auditRows } from "../helpers/operator.js";
import { joinTeam, testAccount } from "../helpers/team.js";

const PASSWORD = "correct horse 1";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const CHROME_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

async function signIn(server: TestServer, email: string, ua: string, headers: Record<string, string> = {}): Promise<ApiClient> {
  const c = new ApiClient(server.url);
  await c.request("GET", "/api/auth/session", undefined, { "user-agent": ua });
  const r = await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, { "user-agent": ua, ...headers });
  expect(r.status, r.text).toBe(200);
  return c;
}

/** Turns TOTP on for a signed-in client; the clock moves past the enabling code's step. */
async function enableTotp(c: ApiClient, clock: ManualClock): Promise<string> {
  const setup = await c.post("/api/auth/2fa/totp/setup");
  const r = await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(setup.body.secret), clock.now()) });
  expect(r.status, r.text).toBe(200);
  clock.advance(30_000);
  return setup.body.secret as string;
}

describe.each(ENGINES)("sessions and second-factor policies on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(1_800_000_000_000);
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1", OPERATOR_REQUIRE_2FA: "true" } });
  });
  afterAll(async () => server?.close());

  it("lists my sessions (this one current; browser, OS, country; no address), ends one, then every other", async () => {
    const email = `sess-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const a = await signIn(server, email, FIREFOX_LINUX, { "cf-ipcountry": "DE", "x-forwarded-for": "198.51.100.7" });
    clock.advance(1000);
    const b = await signIn(server, email, CHROME_WINDOWS);
    clock.advance(1000);
    const c = await signIn(server, email, CHROME_WINDOWS);
    const list = await a.get("/api/auth/sessions");
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(3);
    const [newest, middle, mine] = list.body.sessions;
    expect(mine).toEqual({
      id: expect.stringMatching(/^[0-9A-Za-z]{16}$/),
      current: true,
      browser: "Firefox",
      os: "Linux",
      country: "DE",
      way: "password",
      created_at: new Date(1_800_000_000_000).toISOString(),
      last_seen_at: new Date(1_800_000_000_000).toISOString(),
    });
    expect(newest).toMatchObject({ current: false, browser: "Chrome", os: "Windows", country: null });
    expect(list.text).not.toContain("198.51.100.7");
    expect(list.text).not.toContain(a.cookie!.slice("snip_sid=".length));
    const rows = await server.ctx.storage.db.selectFrom("sessions").select("id_hash").execute();
    for (const r of rows) expect(list.text).not.toContain(r.id_hash);

    expect((await a.delete(`/api/auth/sessions/${middle.id}`)).status).toBe(200);
    expect((await b.get("/api/links")).status).toBe(401);
    expect((await c.get("/api/links")).status).toBe(200);
    expect((await a.delete(`/api/auth/sessions/${middle.id}`)).status).toBe(404);
    // Someone else's session is not found, not ended.
    const other = await signIn(server, (await testAccount(server, `other-${n}@example.com`)).email, FIREFOX_LINUX);
    expect((await other.delete(`/api/auth/sessions/${newest.id}`)).status).toBe(404);
    expect((await c.get("/api/links")).status).toBe(200);

    const revoked = await a.post("/api/auth/sessions/revoke-others");
    expect(revoked.body).toEqual({ status: "success", revoked: 1 });
    expect((await c.get("/api/links")).status).toBe(401);
    expect((await a.get("/api/links")).status).toBe(200);
    expect((await a.get("/api/auth/sessions")).body.sessions).toHaveLength(1);
  });

  it("a sign-in from a browser new to the account emails its owner with the sessions page; a known one does not", async () => {
    const email = `notice-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const mails = () => readOutbox(server.outboxDir).filter((m) => m.includes(`To: ${email}`) && m.includes("New sign-in"));
    await signIn(server, email, FIREFOX_LINUX);
    await signIn(server, email, FIREFOX_LINUX.replace("128.0", "129.0"));
    await new Promise((r) => setTimeout(r, 200));
    expect(mails()).toHaveLength(0);
    await signIn(server, email, CHROME_WINDOWS, { "cf-ipcountry": "FR" });
    await new Promise((r) => setTimeout(r, 300));
    const got = mails();
    expect(got).toHaveLength(1);
    expect(got[0]).toContain("Chrome on Windows (FR)");
    expect(got[0]).toContain(`${server.config.origin}/app/security`);
  });

  it("OPERATOR_REQUIRE_2FA: an operator without a second factor gets 403 2fa_setup_required, with one the console", async () => {
    const email = `op-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true, admin: true });
    const c = await signIn(server, email, FIREFOX_LINUX);
    const refused = await c.get("/api/admin/overview");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("2fa_setup_required");
    expect((await c.get("/api/auth/2fa")).body.required).toBe(true);
    await enableTotp(c, clock);
    expect((await c.get("/api/admin/overview")).status).toBe(200);
  });

  it("team policy (Enterprise): a member without 2FA is refused the owner's links with 2fa_setup_required until set up; audited", async () => {
    const owner = await testAccount(server, `owner-${++n}@example.com`, "enterprise");
    const member = await testAccount(server, `member-${n}@example.com`);
    await joinTeam(server, owner, member);
    expect((await member.client.get(`/api/links?owner=${owner.id}`)).status).toBe(200);
    // The owner's member list says who has a second factor (the Team page's policy section reads it).
    const twoFactorOf = async () =>
      (await owner.client.get("/api/team")).body.members.map((m: { email: string; two_factor: boolean }) => [m.email, m.two_factor]);
    expect(await twoFactorOf()).toEqual([[member.email, false]]);
    expect((await owner.client.get("/api/team/policy")).body).toEqual({ status: "success", require_2fa: false });
    const set = await owner.client.put("/api/team/policy", { require_2fa: true });
    expect(set.body).toEqual({ status: "success", require_2fa: true });
    const refused = await member.client.get(`/api/links?owner=${owner.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("2fa_setup_required");
    expect((await member.client.get("/api/links")).status).toBe(200);
    expect((await member.client.get("/api/auth/2fa")).body.required).toBe(true);
    await enableTotp(member.client, clock);
    expect((await member.client.get(`/api/links?owner=${owner.id}`)).status).toBe(200);
    expect(await twoFactorOf()).toEqual([[member.email, true]]);
    expect((await auditRows(server, 50)).some((r) => r.target_id === owner.id && r.action === "team.2fa_policy")).toBe(true);

    const business = await testAccount(server, `biz-${n}@example.com`, "business");
    const r = await business.client.put("/api/team/policy", { require_2fa: true });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: "plan_required", required_plan: "enterprise" });
  });
});
