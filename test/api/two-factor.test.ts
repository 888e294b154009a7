// Two-factor sign-in on both engines (docs/security.md): set-up, enabling, the login's pending second step
// (no session before it), replay and drift, recovery codes used once, the throttle's 429 with Retry-After,
// disabling and new codes with password and code, hostile input, and the audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { auditRows } from "../helpers/operator.js";

const PASSWORD = "correct horse 1";
const WINDOW_S = 15 * 60;

describe.each(ENGINES)("two-factor sign-in on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(1_800_000_000_000);
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
  });
  afterAll(async () => server?.close());

  const code = (secret: string, offsetMs = 0) => totpCode(secretBytes(secret), clock.now() + offsetMs);

  async function signedIn(email: string): Promise<ApiClient> {
    const c = await new ApiClient(server.url).init();
    const r = await c.login(email, PASSWORD);
    expect(r.status, r.text).toBe(200);
    return c;
  }

  /** An account with TOTP on: its signed-in client, secret and recovery codes. */
  async function withTotp(): Promise<{ c: ApiClient; email: string; id: string; secret: string; codes: string[] }> {
    const email = `tf-${++n}@example.com`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await signedIn(email);
    const setup = await c.post("/api/auth/2fa/totp/setup");
    expect(setup.status, setup.text).toBe(200);
    const enabled = await c.post("/api/auth/2fa/totp/enable", { code: code(setup.body.secret) });
    expect(enabled.status, enabled.text).toBe(200);
    // The enabling code's step is used: later steps only.
    clock.advance(30_000);
    return { c, email, id: user.id, secret: setup.body.secret, codes: enabled.body.recovery_codes };
  }

  it("setup gives a secret, its otpauth URL and an SVG QR code, keeps the secret sealed and enables nothing", async () => {
    const email = `setup-${++n}@example.com`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await signedIn(email);
    const r = await c.post("/api/auth/2fa/totp/setup");
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(r.body.otpauth_url).toBe(
      `otpauth://totp/snip%20127.0.0.1:${encodeURIComponent(email)}?issuer=snip%20127.0.0.1&secret=${r.body.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    expect(r.body.qr_svg.startsWith("<svg")).toBe(true);
    const row = await server.ctx.storage.db.selectFrom("totp_factors").selectAll().where("user_id", "=", user.id).executeTakeFirstOrThrow();
    expect(row.enabled_at).toBeNull();
    expect(row.secret_enc).toBeNull();
    expect(row.pending_enc).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(r.body.secret);
    expect((await c.get("/api/auth/2fa")).body).toMatchObject({ totp_enabled: false, recovery_codes_left: 0, required: false });
    // Not on yet: a sign-in needs no code.
    const again = await new ApiClient(server.url).login(email, PASSWORD);
    expect(again.body.status).toBe("success");
  });

  it("enable: a wrong code is refused; the right one gives 10 recovery codes (kept hashed), ends other sessions and is audited", async () => {
    const email = `enable-${++n}@example.com`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await signedIn(email);
    const other = await signedIn(email);
    expect((await c.post("/api/auth/2fa/totp/enable", { code: "123456" })).body.code).toBe("conflict");
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const good = code(setup.body.secret);
    const wrong = await c.post("/api/auth/2fa/totp/enable", { code: String((Number(good) + 1) % 1e6).padStart(6, "0") });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([{ field: "code", message: "is wrong or was already used" }]);
    const ok = await c.post("/api/auth/2fa/totp/enable", { code: good });
    expect(ok.status).toBe(200);
    expect(ok.body.recovery_codes).toHaveLength(10);
    for (const rc of ok.body.recovery_codes) expect(rc).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const kept = await server.ctx.storage.db.selectFrom("recovery_codes").select("code_hash").where("user_id", "=", user.id).execute();
    expect(kept).toHaveLength(10);
    for (const k of kept) {
      expect(k.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(ok.body.recovery_codes).not.toContain(k.code_hash);
    }
    expect((await other.get("/api/links")).status).toBe(401);
    expect((await c.get("/api/links")).status).toBe(200);
    expect((await c.get("/api/auth/2fa")).body).toMatchObject({ totp_enabled: true, recovery_codes_left: 10 });
    expect((await c.post("/api/auth/2fa/totp/setup")).status).toBe(409);
    const audit = (await auditRows(server, 50)).find((r) => r.target_id === user.id && r.action === "account.2fa_enabled");
    expect(audit).toMatchObject({ actor_id: user.id, actor_email: email, target_type: "account" });
  });

  it("login answers 2fa_required with no session: protected routes 401 with the pending cookie; the code finishes it", async () => {
    const u = await withTotp();
    const signedInAt = async () => (await server.ctx.accounts.byId(u.id))?.last_sign_in_at;
    const before = await signedInAt();
    clock.advance(1_000);
    const c = await new ApiClient(server.url).init();
    const first = await c.login(u.email, PASSWORD);
    expect(first.status).toBe(200);
    // The password alone is not a sign-in: the operator's "last sign-in" waits for the second step.
    expect(await signedInAt()).toBe(before);
    expect(first.body).toEqual({ status: "2fa_required", methods: ["totp", "recovery_code"] });
    const setCookie = first.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(/snip_2fa=[A-Za-z0-9_-]{43}; Max-Age=300; Path=\/api\/auth\/2fa; HttpOnly; SameSite=Strict/);
    expect(setCookie).not.toContain("snip_sid=");
    expect(c.pending).not.toBeNull();
    expect((await c.get("/api/links")).status).toBe(401);
    expect((await c.get("/api/auth/session")).body.user).toBeNull();
    expect((await c.get("/api/auth/sessions")).status).toBe(401);
    const done = await c.post("/api/auth/2fa/verify", { code: code(u.secret) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.user.email).toBe(u.email);
    expect(Number(await signedInAt())).toBe(clock.now());
    expect(done.headers.getSetCookie().join("\n")).toMatch(/snip_2fa=;/);
    expect((await c.get("/api/links")).status).toBe(200);
    // The pending sign-in is spent.
    expect((await c.post("/api/auth/2fa/verify", { code: code(u.secret) })).status).toBe(401);
  });

  it("a code is good once (replay refused), one step of drift either way is accepted, two are not", async () => {
    const u = await withTotp();
    const attempt = async (totp: string) => {
      const c = await new ApiClient(server.url).init();
      expect((await c.login(u.email, PASSWORD)).body.status).toBe("2fa_required");
      return c.post("/api/auth/2fa/verify", { code: totp });
    };
    const now = code(u.secret);
    expect((await attempt(now)).status).toBe(200);
    const replay = await attempt(now);
    expect(replay.status).toBe(400);
    expect(replay.body.details[0]).toEqual({ field: "code", message: "is wrong or was already used" });
    clock.advance(30_000);
    // The previous step's code (one step behind, used) stays refused; two steps ahead is too far.
    expect((await attempt(code(u.secret, 60_000))).status).toBe(400);
    expect((await attempt(code(u.secret, 30_000))).status).toBe(200);
    // Now at step S+4 (S+2 used): one step behind, S+3, is a phone whose clock is slow.
    clock.advance(90_000);
    expect((await attempt(code(u.secret, -30_000))).status).toBe(200);
    await server.ctx.rate.clear(`2fa:${u.id}`);
  });

  it("a recovery code works once, in any case and with or without dashes", async () => {
    const u = await withTotp();
    const c = await new ApiClient(server.url).init();
    await c.login(u.email, PASSWORD);
    const used = u.codes[3]!;
    const ok = await c.post("/api/auth/2fa/verify", { recovery_code: used.toUpperCase().replace(/-/g, " ") });
    expect(ok.status, ok.text).toBe(200);
    expect((await c.get("/api/auth/2fa")).body.recovery_codes_left).toBe(9);
    const d = await new ApiClient(server.url).init();
    await d.login(u.email, PASSWORD);
    const again = await d.post("/api/auth/2fa/verify", { recovery_code: used });
    expect(again.status).toBe(400);
    expect(again.body.details[0].field).toBe("recovery_code");
    expect((await d.get("/api/links")).status).toBe(401);
    // Another account's code is no code of this one.
    const v = await withTotp();
    expect((await d.post("/api/auth/2fa/verify", { recovery_code: v.codes[0] })).status).toBe(400);
    expect((await auditRows(server, 50)).some((r) => r.target_id === u.id && r.action === "account.recovery_code_used")).toBe(true);
  });

  it("5 wrong codes in 15 minutes: 429 with Retry-After, the right code too, until the window passes", async () => {
    const u = await withTotp();
    const c = await new ApiClient(server.url).init();
    await c.login(u.email, PASSWORD);
    for (let i = 0; i < 5; i++) {
      const r = await c.post("/api/auth/2fa/verify", { code: "000000" === code(u.secret) ? "111111" : "000000" });
      expect(r.status).toBe(400);
      clock.advance(1000);
    }
    const limited = await c.post("/api/auth/2fa/verify", { code: code(u.secret) });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBe(WINDOW_S - 5);
    // The throttle is the account's: a new pending sign-in gets no more guesses.
    const d = await new ApiClient(server.url).init();
    await d.login(u.email, PASSWORD);
    expect((await d.post("/api/auth/2fa/verify", { recovery_code: u.codes[0] })).status).toBe(429);
    clock.advance(WINDOW_S * 1000);
    const e = await new ApiClient(server.url).init();
    await e.login(u.email, PASSWORD);
    expect((await e.post("/api/auth/2fa/verify", { code: code(u.secret) })).status).toBe(200);
  });

  it("a pending sign-in lasts 5 minutes; without its cookie, or with a forged one, there is nothing to finish", async () => {
    const u = await withTotp();
    const c = await new ApiClient(server.url).init();
    await c.login(u.email, PASSWORD);
    clock.advance(5 * 60_000);
    const late = await c.post("/api/auth/2fa/verify", { code: code(u.secret) });
    expect(late.status).toBe(401);
    expect(late.body.code).toBe("unauthenticated");
    const none = await new ApiClient(server.url).init();
    expect((await none.post("/api/auth/2fa/verify", { code: code(u.secret) })).status).toBe(401);
    none.pending = `snip_2fa=${"A".repeat(43)}`;
    expect((await none.post("/api/auth/2fa/verify", { code: code(u.secret) })).status).toBe(401);
    none.pending = `snip_2fa=${"A".repeat(5000)}`;
    expect((await none.post("/api/auth/2fa/verify", { code: code(u.secret) })).status).toBe(401);
  });

  it("disabling needs the password and a code; then sign-in needs no code; audited", async () => {
    const u = await withTotp();
    const wrongPw = await u.c.delete("/api/auth/2fa/totp", { password: "not it at all", code: code(u.secret) });
    expect(wrongPw.status).toBe(400);
    expect(wrongPw.body.details[0].field).toBe("password");
    const wrongCode = await u.c.delete("/api/auth/2fa/totp", { password: PASSWORD, code: "12345" });
    expect(wrongCode.status).toBe(400);
    expect(wrongCode.body.details[0].field).toBe("code");
    expect((await u.c.delete("/api/auth/2fa/totp", { password: PASSWORD })).status).toBe(400);
    expect((await u.c.delete("/api/auth/2fa/totp", { code: code(u.secret) })).status).toBe(400);
    expect((await u.c.get("/api/auth/2fa")).body.totp_enabled).toBe(true);
    const ok = await u.c.delete("/api/auth/2fa/totp", { password: PASSWORD, code: code(u.secret) });
    expect(ok.status, ok.text).toBe(200);
    expect((await new ApiClient(server.url).login(u.email, PASSWORD)).body.status).toBe("success");
    expect(await server.ctx.storage.db.selectFrom("recovery_codes").select("code_hash").where("user_id", "=", u.id).execute()).toEqual([]);
    expect((await auditRows(server, 50)).some((r) => r.target_id === u.id && r.action === "account.2fa_disabled")).toBe(true);
  });

  it("new recovery codes need the password and a code; the old ones stop working", async () => {
    const u = await withTotp();
    expect((await u.c.post("/api/auth/2fa/recovery-codes", { password: "wrong password", code: code(u.secret) })).status).toBe(400);
    const r = await u.c.post("/api/auth/2fa/recovery-codes", { password: PASSWORD, code: code(u.secret) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.recovery_codes).toHaveLength(10);
    expect(r.body.recovery_codes).not.toContain(u.codes[0]);
    const c = await new ApiClient(server.url).init();
    await c.login(u.email, PASSWORD);
    expect((await c.post("/api/auth/2fa/verify", { recovery_code: u.codes[0] })).status).toBe(400);
    expect((await c.post("/api/auth/2fa/verify", { recovery_code: r.body.recovery_codes[0] })).status).toBe(200);
    expect((await auditRows(server, 50)).some((x) => x.target_id === u.id && x.action === "account.recovery_codes_regenerated")).toBe(true);
  });

  it("hostile and malformed input: 400 with a stable code, never 5xx", async () => {
    const u = await withTotp();
    const c = await new ApiClient(server.url).init();
    await c.login(u.email, PASSWORD);
    const bodies: unknown[] = [
      {},
      { code: "123456", recovery_code: "abcd-efgh-jkmn-pqrs" },
      { code: 123456 },
      { code: null },
      { code: "1".repeat(65) },
      { code: "123456", extra: 1 },
      { recovery_code: ["a"] },
      "not json",
      [],
    ];
    for (const body of bodies) {
      const r = await c.post("/api/auth/2fa/verify", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    for (const bad of ["../../etc", "<script>", "１２３４５６", "12 34 56", "' OR 1=1 --"]) {
      const r = await c.post("/api/auth/2fa/verify", { code: bad });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    await server.ctx.rate.clear(`2fa:${u.id}`);
    for (const [method, path, body] of [
      ["POST", "/api/auth/2fa/totp/enable", { code: { $ne: 1 } }],
      ["DELETE", "/api/auth/2fa/totp", { password: "x".repeat(1001), code: "123456" }],
      ["POST", "/api/auth/2fa/recovery-codes", { password: PASSWORD, code: "123456", admin: true }],
      ["PUT", "/api/team/policy", { require_2fa: "yes" }],
      ["DELETE", "/api/auth/sessions/" + "x".repeat(65), undefined],
    ] as const) {
      const r = await u.c.request(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
  });
});
