// A passkey as the sign-in's second step (docs/security.md): an account with two-factor sign-in and a
// passkey is offered "passkey" after its password; the options list that account's passkeys only and
// are bound to the pending sign-in; only its own passkey's answer starts a session, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";

const PASSWORD = "correct horse 1";

describe.each(ENGINES)("a passkey as the second step on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(1_800_000_000_000);

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
  });
  afterAll(async () => server?.close());

  async function signedIn(email: string): Promise<ApiClient> {
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await new ApiClient(server.url).init();
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    return c;
  }
  async function addPasskey(c: ApiClient, auth: SoftAuthenticator) {
    const options = (await c.post("/api/auth/passkeys/register/options")).body.options;
    const r = await c.post("/api/auth/passkeys/register/verify", { response: auth.register(options) });
    expect(r.status, r.text).toBe(201);
  }
  async function enableTotp(c: ApiClient) {
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const on = await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(setup.body.secret), clock.now()) });
    expect(on.status, on.text).toBe(200);
    clock.advance(30_000);
  }

  it("offers the passkey after the password and signs in with the account's own passkey, once", async () => {
    const a = await signedIn("tfp-a@example.com");
    const authA = new SoftAuthenticator(server.config.origin);
    await addPasskey(a, authA);
    // A passkey alone does not turn on a second step: the password still signs in.
    const plain = await new ApiClient(server.url).init();
    expect((await plain.login("tfp-a@example.com", PASSWORD)).body.status).toBe("success");
    await enableTotp(a);
    const b = await signedIn("tfp-b@example.com");
    const authB = new SoftAuthenticator(server.config.origin);
    await addPasskey(b, authB);

    const c = await new ApiClient(server.url).init();
    const login = await c.login("tfp-a@example.com", PASSWORD);
    expect(login.body).toEqual({ status: "2fa_required", methods: ["totp", "recovery_code", "passkey"] });
    expect((await c.get("/api/auth/session")).body.user).toBeNull();
    const r = await c.post("/api/auth/2fa/passkey/options");
    expect(r.status, r.text).toBe(200);
    expect(r.body.options.allowCredentials).toEqual([{ id: authA.credentials[0]!.id, type: "public-key", transports: ["internal"] }]);
    // Another account's passkey, signing this challenge, is refused and leaves the pending sign-in.
    const other = await c.post("/api/auth/2fa/passkey/verify", { response: authB.assert(r.body.options) });
    expect([other.status, other.body.code]).toEqual([401, "invalid_credentials"]);
    expect((await c.get("/api/auth/session")).body.user).toBeNull();
    const options = (await c.post("/api/auth/2fa/passkey/options")).body.options;
    const answer = authA.assert(options);
    const ok = await c.post("/api/auth/2fa/passkey/verify", { response: answer });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.user.email).toBe("tfp-a@example.com");
    expect((await c.get("/api/auth/session")).body.user.email).toBe("tfp-a@example.com");
    // The pending sign-in is used up: the same answer again finds none.
    const again = await c.post("/api/auth/2fa/passkey/verify", { response: answer });
    expect([again.status, again.body.code]).toEqual([401, "unauthenticated"]);
  });

  it("refuses the passkey step without a pending sign-in, and malformed answers", async () => {
    const c = await new ApiClient(server.url).init();
    const none = await c.post("/api/auth/2fa/passkey/options");
    expect([none.status, none.body.code]).toEqual([401, "unauthenticated"]);
    await c.login("tfp-a@example.com", PASSWORD);
    for (const body of [{}, { response: "x" }, { response: { id: 1 } }, { response: {}, extra: 1 }]) {
      const r = await c.post("/api/auth/2fa/passkey/verify", body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([400, "invalid_request"]);
    }
  });
});
