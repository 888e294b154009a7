// Every way in × every policy (docs/security.md, The one door), generated from src/auth/ways.ts's table as the
// IDOR and CSRF tests are from the route table: a driver per way (typed Record<Way, ...>, so a new way in
// does not compile without one) and the answer each policy must give it, derived from the way's rules:
// "Require SSO", OIDC_ONLY, OIDC_ONLY for a break-glass operator, a team requiring 2FA, OPERATOR_REQUIRE_2FA,
// a suspended account, and no policy. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { Browser, TestOidc, throughProvider } from "../helpers/oidc.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";
import { readOutbox, tokenOf, waitForLink } from "../helpers/mail.js";
import { ALL_WAYS, WAYS, type Way } from "../../src/auth/ways.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import type { UserRow } from "../../src/storage/schema.js";

const PASSWORD = "correct horse 1";
const SECRET = "enterprise-client-secret-0123456789";
const INSTANCE_SECRET = "instance-client-secret-0123456789";

const POLICIES = ["none", "require_sso", "oidc_only", "oidc_only_break_glass", "team_2fa", "operator_2fa", "suspended"] as const;
type Policy = (typeof POLICIES)[number];
type Outcome = "in" | "sso_required";

/** What the policy must answer the way, from the way's rules; null: the pair does not exist (a sign-up has no account yet). */
function expected(way: Way, policy: Policy): Outcome | null {
  const rules = WAYS[way];
  if (way === "signup" && !["none", "require_sso", "oidc_only"].includes(policy)) return null;
  if (policy === "require_sso") return rules.requireSso === "refuse" ? "sso_required" : "in";
  if (policy === "oidc_only") return rules.oidcOnly === "allow" ? "in" : "sso_required";
  if (policy === "oidc_only_break_glass") return rules.oidcOnly === "refuse" ? "sso_required" : "in";
  return "in";
}

/** What a signed-in caller can ask: an ApiClient, or a Browser that came back from a provider. */
interface Caller {
  get(path: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
}

function browserCaller(server: TestServer, b: Browser): Caller {
  const json = async (r: Response) => ({ status: r.status, body: (await r.json().catch(() => null)) as any });
  return {
    get: async (path) => json(await b.fetch(server.url + path, { headers: { accept: "application/json" } })),
    post: async (path, body) => {
      const csrf = ((await (await b.fetch(`${server.url}/api/auth/session`)).json()) as { csrf_token: string }).csrf_token;
      return json(
        await b.fetch(server.url + path, {
          method: "POST",
          body: JSON.stringify(body),
          headers: { "content-type": "application/json", "x-csrf-token": csrf, accept: "application/json" },
        }),
      );
    },
  };
}

/** A way's attempt: its answer and, when it let the person in, a caller signed in (none for a password reset). */
interface Attempt {
  status: number;
  code: string | undefined;
  caller: Caller | null;
}

describe.each(ENGINES)("every way in under every policy on %s", (engine) => {
  let idp: TestOidc;
  let plain: TestServer;
  let only: TestServer;
  const owners = new Map<TestServer, { open: UserRow; strict: UserRow; team: UserRow }>();
  let n = 0;

  const serverFor = (policy: Policy) => (policy === "oidc_only" || policy === "oidc_only_break_glass" ? only : plain);
  const tag = (s: TestServer) => (s === plain ? "p" : "o");

  beforeAll(async () => {
    const idpPort = await freePort();
    const issuer = `http://127.0.0.1:${idpPort}`;
    const env = {
      WEBHOOK_ALLOW_PRIVATE: "true",
      OPERATOR_REQUIRE_2FA: "true",
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: "snip-instance",
      OIDC_CLIENT_SECRET: INSTANCE_SECRET,
      OIDC_NAME: "Corp ID",
    };
    [plain, only] = await Promise.all([startTestServer({ engine, env }), startTestServer({ engine, env: { ...env, OIDC_ONLY: "true" } })]);
    const callback = (s: TestServer) => `${s.url}/api/auth/sso/callback`;
    idp = await TestOidc.start(idpPort, [
      { client_id: "snip-ent-p", client_secret: SECRET, redirect_uris: [callback(plain)] },
      { client_id: "snip-ent-o", client_secret: SECRET, redirect_uris: [callback(only)] },
      { client_id: "snip-instance", client_secret: INSTANCE_SECRET, redirect_uris: [callback(plain), callback(only)] },
    ]);
    for (const s of [plain, only]) {
      const t = tag(s);
      const make = async (name: string, domain: string, requireSso: boolean) => {
        const owner = await s.ctx.accounts.create({ email: `${name}@owners-${t}.test`, password: PASSWORD, plan: "enterprise", verified: true });
        await s.ctx.sso.connections.set(owner, {
          issuer: idp.issuer,
          client_id: `snip-ent-${t}`,
          client_secret: SECRET,
          domains: [domain],
          require_sso: requireSso,
        });
        // Proving the domain by DNS is sso.test.ts's subject; here it is taken as proved.
        await s.ctx.storage.db
          .updateTable("sso_domains")
          .set({ status: "verified", verified_at: Date.now(), next_check_at: Date.now() + 86_400_000 })
          .where("domain", "=", domain)
          .execute();
        return owner;
      };
      const team = await make("team", `team-${t}.test`, false);
      await s.ctx.teamPolicy.set(team, true);
      owners.set(s, { open: await make("open", `open-${t}.test`, false), strict: await make("strict", `strict-${t}.test`, true), team });
    }
  }, 90_000);
  afterAll(async () => {
    await Promise.all([plain?.close(), only?.close()]);
    await idp?.close();
  });

  /** The address a cell's account has: on the domain its policy (and, for SSO, its way) needs. */
  function emailFor(s: TestServer, way: Way, policy: Policy): string {
    const t = tag(s);
    const local = `${way.replace("_", "-")}-${policy.replaceAll("_", "-")}-${++n}`;
    if (policy === "require_sso") return `${local}@strict-${t}.test`;
    if (policy === "team_2fa") return `${local}@team-${t}.test`;
    return way === "sso" ? `${local}@open-${t}.test` : `${local}@plain.test`;
  }

  /** The account a cell signs in to, with what its way needs (a TOTP factor, a passkey), made before its policy holds. */
  async function accountFor(s: TestServer, way: Way, email: string) {
    const user = await s.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    let recovery: string | null = null;
    const auth = new SoftAuthenticator(s.config.origin);
    if (way === "second_step") {
      const { secret } = await s.ctx.twoFactor.setup(user);
      recovery = (await s.ctx.twoFactor.enable(user, totpCode(secretBytes(secret), s.ctx.clock.now())))[0]!;
    }
    if (way === "passkey") {
      const options = await s.ctx.passkeys.registrationOptions(user, `set-up-${user.id}`);
      await s.ctx.passkeys.register(user, `set-up-${user.id}`, { response: auth.register(options) as never });
    }
    return { user, recovery, auth };
  }

  async function applyPolicy(s: TestServer, policy: Policy, user: UserRow): Promise<void> {
    const db = s.ctx.storage.db;
    if (policy === "suspended") await s.ctx.accounts.setStatus(user.email, "suspended");
    if (policy === "operator_2fa" || policy === "oidc_only_break_glass") await db.updateTable("users").set({ is_admin: 1 }).where("id", "=", user.id).execute();
    if (policy === "oidc_only_break_glass") await s.ctx.sso.policy.markBreakGlass(user.id);
    if (policy === "team_2fa") {
      await db
        .insertInto("team_members")
        .values({ owner_id: owners.get(s)!.team.id, member_id: user.id, joined_at: Date.now() })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }

  async function apiAttempt(c: ApiClient, r: { status: number; body: any }): Promise<Attempt> {
    const ok = r.status < 300 && r.body?.status === "success";
    return { status: r.status, code: r.body?.code, caller: ok ? c : null };
  }

  async function ssoAttempt(s: TestServer, start: string, login: string): Promise<Attempt> {
    const b = new Browser();
    const res = await b.fetch(`${s.url}/api/auth/sso/start?${start}`);
    expect(res.status, await res.clone().text()).toBe(302);
    const url = await throughProvider(b, res.headers.get("location") as string, login, `${s.url}/api/auth/sso/callback`);
    const back = await b.fetch(url, { headers: { accept: "application/json" } });
    if (back.status === 302) return { status: 302, code: undefined, caller: browserCaller(s, b) };
    return { status: back.status, code: ((await back.json()) as { code: string }).code, caller: null };
  }

  /** One driver per way: the attempt, as a person's browser makes it. */
  const DRIVERS: Record<Way, (s: TestServer, email: string, account: Awaited<ReturnType<typeof accountFor>> | null) => Promise<Attempt>> = {
    password: async (s, email) => {
      const c = await new ApiClient(s.url).init();
      return apiAttempt(c, await c.login(email, PASSWORD));
    },
    second_step: async (s, _email, a) => {
      // The pending sign-in was made before the policy held (the password step itself is the password way's row).
      const c = await new ApiClient(s.url).init();
      c.pending = `snip_2fa=${await s.ctx.twoFactor.startPending(a!.user.id)}`;
      return apiAttempt(c, await c.post("/api/auth/2fa/verify", { recovery_code: a!.recovery }));
    },
    passkey: async (s, _email, a) => {
      const c = await new ApiClient(s.url).init();
      const options = (await c.post("/api/auth/passkeys/login/options")).body.options;
      return apiAttempt(c, await c.post("/api/auth/passkeys/login/verify", { response: a!.auth.assert(options) }));
    },
    sso: async (s, email) => {
      idp.accounts.set(email, { email, email_verified: true });
      return ssoAttempt(s, `email=${encodeURIComponent(email)}`, email);
    },
    sso_instance: async (s, email) => {
      idp.accounts.set(email, { email, email_verified: true });
      return ssoAttempt(s, "instance=1", email);
    },
    signup: async (s, email) => {
      const c = await new ApiClient(s.url).init();
      return apiAttempt(c, await c.signup(email));
    },
    password_reset: async (s, email, a) => {
      const c = await new ApiClient(s.url).init();
      expect((await c.post("/api/auth/password-reset", { email })).status).toBe(200);
      // Whether a link went: the reset's throttle counts it before the answer (the email itself follows it).
      const counted = async () => (await s.ctx.storage.db.selectFrom("rate_events").select("id").where("bucket", "=", `reset:${a!.user.id}`).execute()).length;
      const sent = (await counted()) > 0;
      // A refused address gets no link; the door is asked again at the confirmation, with a link made behind its back.
      if (!sent) await s.ctx.accounts.requestPasswordReset(email);
      const token = tokenOf(await waitForLink(s.outboxDir, email, "/app/reset-password/confirm"));
      const r = await c.post("/api/auth/password-reset/confirm", { token, password: "a brand new password 9" });
      if (r.status === 200) expect(sent).toBe(true);
      else expect(readOutbox(s.outboxDir).filter((m) => m.includes(`To: ${email}`) && m.includes("Reset your snip password"))).toHaveLength(1);
      return { status: r.status, code: r.body?.code, caller: null };
    },
  };

  for (const way of ALL_WAYS) {
    for (const policy of POLICIES) {
      const want = expected(way, policy);
      if (want === null) continue;
      it(`${way} under ${policy}: ${want === "in" ? "let in" : "403 sso_required"}`, async () => {
        const s = serverFor(policy);
        const email = emailFor(s, way, policy);
        const account = way === "signup" ? null : await accountFor(s, way, email);
        if (account) await applyPolicy(s, policy, account.user);
        const got = await DRIVERS[way](s, email, account);
        if (want === "sso_required") {
          expect({ status: got.status, code: got.code }).toEqual({ status: 403, code: "sso_required" });
          expect(got.caller).toBeNull();
          return;
        }
        expect(got.status, got.code).toBeLessThan(400);
        if (way === "password_reset") return;
        const me = (await got.caller!.get("/api/auth/session")).body.user;
        expect(me.email).toBe(email);
        if (policy === "suspended") {
          expect(me.status).toBe("suspended");
          expect((await got.caller!.post("/api/links", { url: "https://example.com/" })).body.code).toBe("account_inactive");
        }
        // The 2FA policies let every way in; what they hold back is the console and the team's links, until
        // the account has a second factor (the second step's account has one).
        const held = way === "second_step" ? undefined : "2fa_setup_required";
        if (policy === "operator_2fa") expect((await got.caller!.get("/api/admin/overview")).body.code).toBe(held);
        if (policy === "team_2fa") expect((await got.caller!.get(`/api/links?owner=${owners.get(s)!.team.id}`)).body.code).toBe(held);
      });
    }
  }
});
