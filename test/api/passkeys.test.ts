// Passkeys over HTTP on both engines (docs/passkeys.md): options, registration and sign-in with a software
// authenticator, single-use challenges bound to the session, the signature counter, removal with the password,
// other accounts' passkeys, and hostile bodies (400 with a stable code, never 5xx).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";
import { expectContract } from "../helpers/routes.js";

const PASSWORD = "correct horse 1";

describe.each(ENGINES)("passkeys on %s", (engine) => {
  let server: TestServer;
  let a: ApiClient;
  let b: ApiClient;
  let auth: SoftAuthenticator;
  let aId: string;
  let passkeyId: string;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    a = await signedInClient(server, "pk-a@example.com");
    b = await signedInClient(server, "pk-b@example.com");
    aId = (await a.get("/api/auth/session")).body.user.id;
    auth = new SoftAuthenticator(server.config.origin);
  });
  afterAll(async () => server?.close());

  const hostname = () => new URL(server.config.origin).hostname;
  const fresh = async () => new ApiClient(server.url).init();
  async function loginOptions(c: ApiClient) {
    const r = await c.post("/api/auth/passkeys/login/options");
    expect(r.status, r.text).toBe(200);
    return r.body.options;
  }
  async function audit(action: string) {
    return server.ctx.storage.db.selectFrom("admin_audit").selectAll().where("action", "=", action).where("target_id", "=", aId).execute();
  }

  it("offers creation options for a discoverable passkey bound to BASE_URL's host", async () => {
    const r = await a.post("/api/auth/passkeys/register/options");
    expect(r.status, r.text).toBe(200);
    const o = r.body.options;
    expect(o.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(o.rp).toEqual({ name: "snip", id: hostname() });
    expect(o.user).toEqual({ id: Buffer.from(aId).toString("base64url"), name: "pk-a@example.com", displayName: "pk-a@example.com" });
    expect(o.authenticatorSelection).toEqual({ residentKey: "required", requireResidentKey: true, userVerification: "preferred" });
    expect(o.attestation).toBe("none");
    expect(o.timeout).toBe(120000);
    expect(o.excludeCredentials).toEqual([]);
    expect(o.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toContain(-7);
    expect(r.headers.get("cache-control")).toBe("no-store");
    // Signed out: no registration.
    const anon = await (await fresh()).post("/api/auth/passkeys/register/options");
    expect([anon.status, anon.body.code]).toEqual([401, "unauthenticated"]);
  });

  it("registers a named passkey and lists it with its dates, and records it in the audit log", async () => {
    const options = (await a.post("/api/auth/passkeys/register/options")).body.options;
    const r = await a.post("/api/auth/passkeys/register/verify", { name: "  Laptop  ", response: auth.register(options) });
    expect(r.status, r.text).toBe(201);
    passkeyId = r.body.passkey.id;
    expect(r.body.passkey).toEqual({
      id: passkeyId,
      name: "Laptop",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      transports: ["internal"],
      synced: false,
    });
    const list = await a.get("/api/auth/passkeys");
    expect(list.body.passkeys).toEqual([r.body.passkey]);
    expect((await b.get("/api/auth/passkeys")).body.passkeys).toEqual([]);
    const rows = await audit("passkey.added");
    expect(rows.map((x) => [x.actor_id, x.actor_email, x.target_type, x.summary])).toEqual([[aId, "pk-a@example.com", "account", 'Passkey "Laptop" added']]);
    // The new credential is excluded from the next registration (no second copy on one authenticator).
    const next = (await a.post("/api/auth/passkeys/register/options")).body.options;
    expect(next.excludeCredentials).toEqual([{ id: auth.credentials[0]!.id, type: "public-key", transports: ["internal"] }]);
  });

  it("refuses a registration answer replayed, without options, or for another origin", async () => {
    const options = (await a.post("/api/auth/passkeys/register/options")).body.options;
    const answer = auth.register(options, { origin: "https://evil.example" });
    const wrong = await a.post("/api/auth/passkeys/register/verify", { response: answer });
    expect([wrong.status, wrong.body.code]).toEqual([400, "passkey_rejected"]);
    // The challenge went with that attempt: the same answer again finds none.
    const again = await a.post("/api/auth/passkeys/register/verify", { response: answer });
    expect([again.status, again.body.code]).toEqual([400, "invalid_challenge"]);
    // Options for one session are not another's: B cannot finish A's ceremony.
    const aOptions = (await a.post("/api/auth/passkeys/register/options")).body.options;
    const stolen = await b.post("/api/auth/passkeys/register/verify", { response: auth.register(aOptions) });
    expect([stolen.status, stolen.body.code]).toEqual([400, "invalid_challenge"]);
    // An answer signing another challenge than the pending one.
    await a.post("/api/auth/passkeys/register/options");
    const other = await a.post("/api/auth/passkeys/register/verify", { response: auth.register(aOptions, { challenge: "A".repeat(43) }) });
    expect([other.status, other.body.code]).toEqual([400, "invalid_challenge"]);
    expect((await a.get("/api/auth/passkeys")).body.passkeys).toHaveLength(1);
  });

  it("signs in with the passkey alone: a new session, as a password sign-in makes", async () => {
    const c = await fresh();
    const before = c.cookie;
    const options = await loginOptions(c);
    expect(options).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      rpId: hostname(),
      timeout: 120000,
      userVerification: "preferred",
      allowCredentials: [],
    });
    const r = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(options) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.user.email).toBe("pk-a@example.com");
    expect(c.cookie).not.toBe(before);
    expect((await c.get("/api/auth/session")).body.user.id).toBe(aId);
    expect((await c.get("/api/profile")).status).toBe(200);
    const [pk] = (await a.get("/api/auth/passkeys")).body.passkeys;
    expect(pk.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const row = await server.ctx.storage.db.selectFrom("passkeys").select("counter").where("id", "=", passkeyId).executeTakeFirstOrThrow();
    expect(Number(row.counter)).toBe(auth.credentials[0]!.counter);
  });

  it("uses a sign-in challenge once, only for its own session, and only before options replace it", async () => {
    const c = await fresh();
    const none = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert({ challenge: "A".repeat(43) }) });
    expect([none.status, none.body.code]).toEqual([400, "invalid_challenge"]);

    const options = await loginOptions(c);
    const answer = auth.assert(options);
    const other = await fresh();
    await loginOptions(other);
    const elsewhere = await other.post("/api/auth/passkeys/login/verify", { response: answer });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([400, "invalid_challenge"]);
    expect((await other.get("/api/auth/session")).body.user).toBeNull();

    const ok = await c.post("/api/auth/passkeys/login/verify", { response: answer });
    expect(ok.status, ok.text).toBe(200);
    // Replayed after it succeeded: the challenge is gone (and the session rotated: the new one has none either).
    const replay = await c.post("/api/auth/passkeys/login/verify", { response: answer });
    expect([replay.status, replay.body.code]).toEqual([400, "invalid_challenge"]);
    // A new challenge does not revive an answer to the old one, and that answer does not spend the new one.
    const pending = await loginOptions(c);
    const stale = await c.post("/api/auth/passkeys/login/verify", { response: answer });
    expect([stale.status, stale.body.code]).toEqual([400, "invalid_challenge"]);
    expect((await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(pending) })).status).toBe(200);
  });

  it("keeps one challenge per session when options are asked for at once", async () => {
    const c = await fresh();
    const before = (await server.ctx.storage.db.selectFrom("passkey_challenges").select("binding_hash").execute()).length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => c.post("/api/auth/passkeys/login/options")));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((r) => r.body.options.challenge)).size).toBe(6);
    expect((await server.ctx.storage.db.selectFrom("passkey_challenges").select("binding_hash").execute()).length).toBe(before + 1);
  });

  it("refuses a signature counter that did not go up, and answers for another origin", async () => {
    const c = await fresh();
    const cred = auth.credentials[0]!;
    const cloned = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(await loginOptions(c), { counter: cred.counter }) });
    expect([cloned.status, cloned.body.code]).toEqual([401, "invalid_credentials"]);
    const phished = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(await loginOptions(c), { origin: "https://snip.evil.example" }) });
    expect([phished.status, phished.body.code]).toEqual([401, "invalid_credentials"]);
    const unknown = new SoftAuthenticator(server.config.origin);
    unknown.register({ challenge: "x", rp: { id: hostname() }, user: { id: Buffer.from(aId).toString("base64url") } });
    const stranger = await c.post("/api/auth/passkeys/login/verify", { response: unknown.assert(await loginOptions(c)) });
    expect([stranger.status, stranger.body.code]).toEqual([401, "invalid_credentials"]);
    expect((await c.get("/api/auth/session")).body.user).toBeNull();
  });

  it("accepts, as a second factor for one account, only that account's passkeys", async () => {
    const { passkeys } = server.ctx;
    const bId = (await b.get("/api/auth/session")).body.user.id;
    const forB = await passkeys.authenticationOptions("second-factor", "pending-b", bId);
    expect(forB.allowCredentials).toEqual([]);
    await expect(passkeys.finishAuthentication("second-factor", "pending-b", auth.assert(forB))).rejects.toMatchObject({ code: "invalid_credentials" });
    const forA = await passkeys.authenticationOptions("second-factor", "pending-a", aId);
    expect(forA.allowCredentials).toEqual([{ id: auth.credentials[0]!.id, type: "public-key", transports: ["internal"] }]);
    expect((await passkeys.finishAuthentication("second-factor", "pending-a", auth.assert(forA))).id).toBe(aId);
    // A challenge of the sign-in page is not one of a second-factor step.
    await expect(passkeys.finishAuthentication("login", "pending-a", auth.assert(forA))).rejects.toMatchObject({ code: "invalid_challenge" });
  });

  it("renames a passkey", async () => {
    const r = await a.patch(`/api/auth/passkeys/${passkeyId}`, { name: "Work laptop" });
    expect([r.status, r.body.passkey?.name]).toEqual([200, "Work laptop"]);
    const blank = await a.patch(`/api/auth/passkeys/${passkeyId}`, { name: "   " });
    expect([blank.status, blank.body.code, blank.body.details]).toEqual([400, "invalid_request", [{ field: "name", message: "must not be empty" }]]);
  });

  it("removes a passkey only with the right password, only its owner's", async () => {
    const byB = await b.delete(`/api/auth/passkeys/${passkeyId}`, { password: PASSWORD });
    expect([byB.status, byB.body.code]).toEqual([404, "not_found"]);
    const wrong = await a.delete(`/api/auth/passkeys/${passkeyId}`, { password: "not the password" });
    expect([wrong.status, wrong.body.code, wrong.body.details]).toEqual([
      400,
      "invalid_request",
      [{ field: "password", message: "is not your current password" }],
    ]);
    const none = await a.delete(`/api/auth/passkeys/${passkeyId}`);
    expect([none.status, none.body.code]).toEqual([400, "invalid_request"]);
    expect((await a.get("/api/auth/passkeys")).body.passkeys).toHaveLength(1);
    expect(await audit("passkey.removed")).toEqual([]);

    const ok = await a.delete(`/api/auth/passkeys/${passkeyId}`, { password: PASSWORD });
    expect(ok.status, ok.text).toBe(200);
    expect((await a.get("/api/auth/passkeys")).body.passkeys).toEqual([]);
    expect((await audit("passkey.removed")).map((x) => x.summary)).toEqual(['Passkey "Work laptop" removed']);
    // A removed passkey signs no one in.
    const c = await fresh();
    const r = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(await loginOptions(c)) });
    expect([r.status, r.body.code]).toEqual([401, "invalid_credentials"]);
  });

  it("answers malformed and hostile bodies with 400, never 5xx", async () => {
    const c = await fresh();
    const options = await loginOptions(c);
    const good = auth.assert(options);
    const regOptions = (await a.post("/api/auth/passkeys/register/options")).body.options;
    const reg = auth.register(regOptions);
    const cases: Array<[string, string, unknown, string]> = [
      ["login", "/api/auth/passkeys/login/verify", {}, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: "x" }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: good, extra: 1 }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, id: "a".repeat(2000) } }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, id: "<script>" } }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, type: "password" } }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, id: undefined } }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, response: { ...good.response, signature: undefined } } }, "invalid_request"],
      ["login", "/api/auth/passkeys/login/verify", { response: { ...good, response: { ...good.response, signature: 7 } } }, "invalid_request"],
      ["a", "/api/auth/passkeys/register/verify", { response: reg, name: "x".repeat(65) }, "invalid_request"],
      ["a", "/api/auth/passkeys/register/verify", { response: reg, name: "a\u0000b" }, "invalid_request"],
      [
        "a",
        "/api/auth/passkeys/register/verify",
        { response: { ...reg, response: { ...reg.response, transports: Array(11).fill("usb") } } },
        "invalid_request",
      ],
    ];
    const failures: string[] = [];
    for (const [who, path, body, code] of cases) {
      const client = who === "a" ? a : c;
      const r = await client.post(path, body);
      expectContract(r, `${path} ${JSON.stringify(body).slice(0, 80)}`);
      if (r.status !== 400 || r.body.code !== code) failures.push(`${path} ${JSON.stringify(body).slice(0, 60)}: ${r.status} ${r.body.code}`);
    }
    expect(failures).toEqual([]);
    // Well-formed JSON for the pending challenge whose attestation is not CBOR: the library's refusal, as a stable code.
    const pending = auth.register((await a.post("/api/auth/passkeys/register/options")).body.options);
    const notCbor = await a.post("/api/auth/passkeys/register/verify", {
      response: { ...pending, response: { ...pending.response, attestationObject: "AAAA" } },
    });
    expect([notCbor.status, notCbor.body.code]).toEqual([400, "passkey_rejected"]);
    // A hostile signature with a live challenge: refused as a wrong passkey, not an error.
    const garbled = await c.post("/api/auth/passkeys/login/verify", {
      response: { ...auth.assert(await loginOptions(c)), response: { ...good.response, signature: "AAAA", authenticatorData: "AAAA" } },
    });
    expect(garbled.status).toBeLessThan(500);
    expect([400, 401]).toContain(garbled.status);
  });

  it("throttles passwordless sign-ins per address: 100 starts in 15 minutes, and refusals count among the password form's 50 failures", async () => {
    const db = server.ctx.storage.db;
    const clear = () =>
      db
        .deleteFrom("rate_events")
        .where((eb) => eb.or([eb("bucket", "like", "passkey-start:%"), eb("bucket", "like", "login:ip:%")]))
        .execute();
    await clear();
    const c = await fresh();
    for (let i = 0; i < 100; i++) expect((await c.post("/api/auth/passkeys/login/options")).status).toBe(200);
    const over = await c.post("/api/auth/passkeys/login/options");
    expect([over.status, over.body.code]).toEqual([429, "rate_limited"]);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    await clear();
    // Wrong answers: each counts for the address; the 51st answer, right or wrong, is refused before any check.
    const options = await loginOptions(c);
    for (let i = 0; i < 50; i++) {
      const wrong = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert({ challenge: "B".repeat(43) }) });
      expect(wrong.status).toBe(400);
    }
    const right = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(options) });
    expect([right.status, right.body.code]).toEqual([429, "rate_limited"]);
    // The password form shares the address's bucket.
    const pw = await (await fresh()).login("pk-a@example.com", PASSWORD);
    expect([pw.status, pw.body.code]).toEqual([429, "rate_limited"]);
    await clear();
    // With the bucket empty the answer is checked again (the passkey was removed above: refused as unknown).
    const after = await c.post("/api/auth/passkeys/login/verify", { response: auth.assert(options) });
    expect([after.status, after.body.code]).toEqual([401, "invalid_credentials"]);
  });
});
