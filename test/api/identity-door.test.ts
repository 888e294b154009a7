// The one door's promises beyond the way-by-policy table (docs/security.md): sudo mode on every change of how
// the account signs in (403 reauth_required, POST /api/auth/reauth with the password or a passkey), what each
// change ends (pending sign-ins at a new password, non-SSO sessions when SSO becomes required), the security
// alert emails, and the account's own activity list. Issue 53's findings 3, 4, 5 and 7 each have a test here.
// On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";
import { Browser, TestOidc, throughProvider } from "../helpers/oidc.js";
import { readOutbox, tokenOf, waitForLink } from "../helpers/mail.js";
import { waitFor } from "../helpers/wait.js";

const PASSWORD = "correct horse 1";
const SECRET = "enterprise-client-secret-0123456789";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const MINUTE = 60_000;

/** Every change of how one signs in that needs sudo mode, with a body that is otherwise acceptable or harmless. */
const SUDO_ROUTES: Array<[method: string, path: string, body?: unknown]> = [
  ["POST", "/api/auth/2fa/totp/setup"],
  ["POST", "/api/auth/2fa/totp/enable", { code: "123456" }],
  ["POST", "/api/auth/passkeys/register/options"],
  [
    "POST",
    "/api/auth/passkeys/register/verify",
    { response: { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "e30", attestationObject: "e30" }, clientExtensionResults: {} } },
  ],
  ["POST", "/api/keys", { name: "thief" }],
  ["PUT", "/api/sso", { issuer: "https://idp.example.com", client_id: "c", client_secret: "s", domains: ["example.org"] }],
  ["DELETE", "/api/sso"],
  ["PUT", "/api/team/policy", { require_2fa: true }],
];

describe.each(ENGINES)("the one door on %s", (engine) => {
  let server: TestServer;
  let idp: TestOidc;
  const clock = new ManualClock(1_800_000_000_000);
  let n = 0;

  beforeAll(async () => {
    const idpPort = await freePort();
    server = await startTestServer({ engine, clock, env: { WEBHOOK_ALLOW_PRIVATE: "true", TRUST_PROXY: "127.0.0.1" } });
    idp = await TestOidc.start(idpPort, [{ client_id: "snip-ent", client_secret: SECRET, redirect_uris: [`${server.url}/api/auth/sso/callback`] }]);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  async function account(plan = "free", domain = "example.com") {
    const email = `door-${++n}@${domain}`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, plan, verified: true });
    const c = await new ApiClient(server.url).init();
    expect((await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, { "user-agent": FIREFOX })).status).toBe(200);
    return { c, email, user };
  }
  const mailsTo = (email: string, subject: string) => readOutbox(server.outboxDir).filter((m) => m.includes(`To: ${email}`) && m.includes(subject));
  const send = (c: ApiClient, [method, path, body]: (typeof SUDO_ROUTES)[number]) => c.request(method, path, body);

  it("sudo mode: a sign-in opens it for 10 minutes; then every change of how one signs in answers 403 reauth_required and changes nothing", async () => {
    const { c, user } = await account("enterprise");
    const fresh = await c.get("/api/auth/session");
    expect(fresh.body).toMatchObject({ sudo_until: new Date(clock.now() + 10 * MINUTE).toISOString(), signed_in_with: "password" });
    clock.advance(10 * MINUTE + 1);
    expect((await c.get("/api/auth/session")).body.sudo_until).toBeNull();
    for (const route of SUDO_ROUTES) {
      const r = await send(c, route);
      expect({ route: route.slice(0, 2), status: r.status, code: r.body.code }).toEqual({ route: route.slice(0, 2), status: 403, code: "reauth_required" });
    }
    const db = server.ctx.storage.db;
    expect(await db.selectFrom("api_keys").select("id").where("user_id", "=", user.id).execute()).toEqual([]);
    expect(await db.selectFrom("totp_factors").select("user_id").where("user_id", "=", user.id).execute()).toEqual([]);
    expect(await db.selectFrom("sso_connections").select("id").where("owner_id", "=", user.id).execute()).toEqual([]);
    expect((await c.get("/api/team/policy")).body.require_2fa).toBe(false);
  });

  it("finding 4: a copied session cannot turn 2FA on without the password; POST /api/auth/reauth opens sudo mode, a wrong password does not", async () => {
    const { c, user } = await account();
    clock.advance(11 * MINUTE);
    const thief = new ApiClient(server.url);
    thief.cookie = c.cookie;
    thief.csrf = c.csrf;
    expect((await thief.post("/api/auth/2fa/totp/setup")).body.code).toBe("reauth_required");
    const wrong = await thief.post("/api/auth/reauth", { password: "not the password" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details[0].field).toBe("password");
    expect((await thief.post("/api/auth/2fa/totp/setup")).body.code).toBe("reauth_required");
    expect((await thief.post("/api/auth/reauth", {})).status).toBe(400);

    // The owner, who knows the password, confirms and carries on for 10 minutes.
    const ok = await c.post("/api/auth/reauth", { password: PASSWORD });
    expect(ok.body).toEqual({ status: "success", sudo_until: new Date(clock.now() + 10 * MINUTE).toISOString() });
    const setup = await c.post("/api/auth/2fa/totp/setup");
    expect(setup.status).toBe(200);
    const on = await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(setup.body.secret), clock.now()) });
    expect(on.status, on.text).toBe(200);
    const kinds = (await server.ctx.auth.activity.list(user.id)).map((a) => `${a.kind}:${a.outcome}`);
    expect(kinds.slice(0, 3)).toEqual(["2fa_enabled:success", "reauth:success", "reauth:refused"]);
  });

  it("finding 5: a copied session cannot add a passkey without the password; with a passkey as proof it can", async () => {
    const { c, user, email } = await account();
    const auth = new SoftAuthenticator(server.config.origin);
    const options = (await c.post("/api/auth/passkeys/register/options")).body.options;
    expect(
      (await c.request("POST", "/api/auth/passkeys/register/verify", { response: auth.register(options), name: "Mine" }, { "user-agent": FIREFOX })).status,
    ).toBe(201);
    await waitFor(() => mailsTo(email, "Security alert: A passkey was added").length === 1 || null, { what: "the passkey alert" });
    const alert = mailsTo(email, "Security alert: A passkey was added")[0]!;
    expect(alert).toContain("(Mine)");
    expect(alert).toContain("Firefox on Linux");
    expect(alert).toContain(`${server.config.origin}/app/security`);
    expect(alert).toContain(new Date(clock.now()).toISOString());

    clock.advance(11 * MINUTE);
    const thiefAuth = new SoftAuthenticator(server.config.origin);
    expect((await c.post("/api/auth/passkeys/register/options")).body.code).toBe("reauth_required");
    // Proof by the owner's own passkey (not another account's).
    const reauthOptions = (await c.post("/api/auth/reauth/passkey/options")).body.options;
    expect(reauthOptions.allowCredentials.map((d: { id: string }) => d.id)).toEqual([auth.credentials[0]!.id]);
    const proved = await c.post("/api/auth/reauth", { response: auth.assert(reauthOptions) });
    expect(proved.status, proved.text).toBe(200);
    const again = (await c.post("/api/auth/passkeys/register/options")).body.options;
    expect((await c.post("/api/auth/passkeys/register/verify", { response: thiefAuth.register(again) })).status).toBe(201);
    expect((await server.ctx.passkeys.list(user.id)).length).toBe(2);
  });

  it("finding 7: a password reset or change ends pending sign-ins as well as sessions", async () => {
    const { c, user, email } = await account();
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const secret = setup.body.secret as string;
    expect((await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(secret), clock.now()) })).status).toBe(200);
    clock.advance(30_000);

    // A thief with the old password waits at the second step; the owner resets the password.
    const thief = await new ApiClient(server.url).init();
    expect((await thief.login(email, PASSWORD)).body.status).toBe("2fa_required");
    const owner = await new ApiClient(server.url).init();
    await owner.post("/api/auth/password-reset", { email });
    const token = tokenOf(await waitForLink(server.outboxDir, email, "/app/reset-password/confirm"));
    expect((await owner.post("/api/auth/password-reset/confirm", { token, password: "a new password 1" })).status).toBe(200);
    const late = await thief.post("/api/auth/2fa/verify", { code: totpCode(secretBytes(secret), clock.now()) });
    expect(late.status).toBe(401);
    expect(late.body.code).toBe("unauthenticated");
    expect((await c.get("/api/auth/session")).body.user).toBeNull();
    await waitFor(() => mailsTo(email, "Security alert: Your password was reset").length === 1 || null, { what: "the reset alert" });

    // The same for a change of password from a signed-in session.
    clock.advance(30_000);
    const pending = await new ApiClient(server.url).init();
    expect((await pending.login(email, "a new password 1")).body.status).toBe("2fa_required");
    const me = await new ApiClient(server.url).init();
    await me.login(email, "a new password 1");
    clock.advance(30_000);
    const signedIn = await me.post("/api/auth/2fa/verify", { code: totpCode(secretBytes(secret), clock.now()) });
    expect(signedIn.status).toBe(200);
    expect((await me.post("/api/profile/password", { current_password: "a new password 1", new_password: "a newer password 2" })).status).toBe(200);
    clock.advance(30_000);
    expect((await pending.post("/api/auth/2fa/verify", { code: totpCode(secretBytes(secret), clock.now()) })).status).toBe(401);
    expect(await server.ctx.storage.db.selectFrom("pending_sign_ins").select("user_id").where("user_id", "=", user.id).execute()).toEqual([]);
    await waitFor(() => mailsTo(email, "Security alert: Your password was changed").length === 1 || null, { what: "the change alert" });
  });

  it("finding 3: turning Require SSO on ends its addresses' password and passkey sessions, keeps SSO ones and the owner's, and tells each", async () => {
    const { c: owner } = await account("enterprise", "owner-co.test");
    const put = (requireSso: boolean) =>
      owner.put("/api/sso", { issuer: idp.issuer, client_id: "snip-ent", client_secret: SECRET, domains: ["staff-co.test"], require_sso: requireSso });
    expect((await put(false)).status).toBe(200);
    await server.ctx.storage.db
      .updateTable("sso_domains")
      .set({ status: "verified", verified_at: clock.now(), next_check_at: clock.now() + 86_400_000 })
      .where("domain", "=", "staff-co.test")
      .execute();
    const byPassword = await account("free", "staff-co.test");
    const auth = new SoftAuthenticator(server.config.origin);
    const options = (await byPassword.c.post("/api/auth/passkeys/register/options")).body.options;
    expect((await byPassword.c.post("/api/auth/passkeys/register/verify", { response: auth.register(options) })).status).toBe(201);
    const byPasskey = await new ApiClient(server.url).init();
    const login = (await byPasskey.post("/api/auth/passkeys/login/options")).body.options;
    expect((await byPasskey.post("/api/auth/passkeys/login/verify", { response: auth.assert(login) })).status).toBe(200);
    // The same person signed in through the organisation's provider, in another browser.
    idp.accounts.set("staffer", { email: byPassword.email, email_verified: true });
    const b = new Browser();
    const start = await b.fetch(`${server.url}/api/auth/sso/start?email=${encodeURIComponent(byPassword.email)}`);
    const back = await b.fetch(await throughProvider(b, start.headers.get("location") as string, "staffer", `${server.url}/api/auth/sso/callback`));
    expect(back.status).toBe(302);

    expect((await put(true)).status).toBe(200);
    expect((await byPassword.c.get("/api/auth/session")).body.user).toBeNull();
    expect((await byPasskey.get("/api/auth/session")).body.user).toBeNull();
    const ssoSession = (await (await b.fetch(`${server.url}/api/auth/session`)).json()) as { user: { email: string }; signed_in_with: string };
    expect(ssoSession).toMatchObject({ user: { email: byPassword.email }, signed_in_with: "sso" });
    expect((await owner.get("/api/auth/session")).body.user).not.toBeNull();
    await waitFor(() => mailsTo(byPassword.email, "Security alert: Your organisation now requires single sign-on").length === 1 || null, {
      what: "the SSO alert",
    });
    // And from now on neither the passkey nor the password signs in.
    const retry = await new ApiClient(server.url).init();
    const again = (await retry.post("/api/auth/passkeys/login/options")).body.options;
    expect((await retry.post("/api/auth/passkeys/login/verify", { response: auth.assert(again) })).body.code).toBe("sso_required");
    expect((await retry.login(byPassword.email, PASSWORD)).body.code).toBe("sso_required");
  });

  it("a fresh SSO sign-in (the proof of an SSO account) lands back on the dashboard page that asked, never on another site", async () => {
    const { c: owner } = await account("enterprise", "ret-owner.test");
    expect((await owner.put("/api/sso", { issuer: idp.issuer, client_id: "snip-ent", client_secret: SECRET, domains: ["ret-co.test"] })).status).toBe(200);
    await server.ctx.storage.db
      .updateTable("sso_domains")
      .set({ status: "verified", verified_at: clock.now(), next_check_at: clock.now() + 86_400_000 })
      .where("domain", "=", "ret-co.test")
      .execute();
    idp.accounts.set("returner", { email: "returner@ret-co.test", email_verified: true });
    const landing = async (returnTo: string) => {
      const b = new Browser();
      const start = await b.fetch(`${server.url}/api/auth/sso/start?email=returner@ret-co.test&return_to=${encodeURIComponent(returnTo)}`);
      expect(start.status).toBe(302);
      const back = await b.fetch(await throughProvider(b, start.headers.get("location") as string, "returner", `${server.url}/api/auth/sso/callback`));
      expect(back.status).toBe(302);
      const session = (await (await b.fetch(`${server.url}/api/auth/session`)).json()) as { sudo_until: string | null };
      expect(session.sudo_until).not.toBeNull();
      return back.headers.get("location");
    };
    expect(await landing("/app/security?tab=keys")).toBe("/app/security?tab=keys");
    for (const hostile of ["https://evil.test/app", "//evil.test/app", "/app/../api/keys", "/app\\@evil.test", "/apple", "/app/%0d%0aSet-Cookie:x=1"]) {
      const to = await landing(hostile);
      // Our own host, under /app, nothing raw in the header (an escaped %0d%0a stays escaped in the path).
      expect(to === "/app" || (to?.startsWith("/app/") === true && !/[\r\n]/.test(to)), `${hostile} -> ${to}`).toBe(true);
    }
  });

  it("alerts: 2FA off, new recovery codes and a new API key each email the account; the activity list shows them, refusals and no address", async () => {
    const { c, email, user } = await account("business");
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const secret = setup.body.secret as string;
    await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(secret), clock.now()) });
    clock.advance(30_000);
    expect((await c.post("/api/auth/2fa/recovery-codes", { password: PASSWORD, code: totpCode(secretBytes(secret), clock.now()) })).status).toBe(200);
    clock.advance(30_000);
    expect((await c.request("DELETE", "/api/auth/2fa/totp", { password: PASSWORD, code: totpCode(secretBytes(secret), clock.now()) })).status).toBe(200);
    expect((await c.post("/api/keys", { name: "CI deploys" })).status).toBe(201);
    const stranger = await new ApiClient(server.url).init();
    expect((await stranger.request("POST", "/api/auth/login", { email, password: "wrong wrong wrong" }, { "x-forwarded-for": "198.51.100.77" })).status).toBe(
      401,
    );

    for (const subject of ["Two-factor sign-in was turned off", "New recovery codes were made", "A new API key was created"]) {
      await waitFor(() => mailsTo(email, `Security alert: ${subject}`).length === 1 || null, { what: subject });
    }
    expect(mailsTo(email, "A new API key was created")[0]).toContain("(CI deploys)");

    const activity = await c.get("/api/auth/activity");
    expect(activity.status).toBe(200);
    expect(activity.text).not.toContain("198.51.100.77");
    expect(activity.body.activity.map((a: { kind: string; outcome: string; way: string | null }) => [a.kind, a.outcome, a.way])).toEqual([
      ["sign_in", "refused", "password"],
      ["api_key_created", "success", null],
      ["2fa_disabled", "success", null],
      ["recovery_codes_regenerated", "success", null],
      ["2fa_enabled", "success", null],
      ["sign_in", "success", "password"],
    ]);
    expect(activity.body.activity[0]).toMatchObject({ detail: "invalid_credentials" });
    expect(activity.body.activity[5]).toMatchObject({ browser: "Firefox", os: "Linux" });
    // Kept 90 days.
    clock.advance(91 * 86_400_000);
    await server.ctx.auth.activity.prune();
    expect(await server.ctx.storage.db.selectFrom("security_events").select("id").where("user_id", "=", user.id).execute()).toEqual([]);
    expect((await new ApiClient(server.url).get("/api/auth/activity")).status).toBe(401);
  });
});
