// Issue 55's findings 2, 3 and 5 on the server and the CLI: the words of a wrong two-factor code (no field name
// in the message), of a destination that is no address at all, and of one that points back at this service; `snip
// key create --expires` taking a day as the dashboard does; and GET /api/auth/sso/options saying whether any
// organisation can sign in by email-first single sign-on (the sign-in page offers it only then).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { cliInProcess as cli } from "../helpers/cli-in-process.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";

const PASSWORD = "correct horse 1";

describe.each(ENGINES)("issue 55 findings on the server, %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock(Date.UTC(2026, 11, 5, 9, 0, 0));
  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
  });
  afterAll(async () => server?.close());

  it("2: a wrong code says so in a sentence, with no field name; the field's own words are unchanged", async () => {
    const email = `wrong-code-${engine}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = new ApiClient(server.url);
    expect((await c.login(email, PASSWORD)).status).toBe(200);
    const setup = await c.post("/api/auth/2fa/totp/setup");
    const good = totpCode(secretBytes(setup.body.secret), clock.now());
    const wrong = await c.post("/api/auth/2fa/totp/enable", { code: String((Number(good) + 1) % 1e6).padStart(6, "0") });
    expect([wrong.status, wrong.body.code, wrong.body.message]).toEqual([400, "invalid_request", "This code is wrong or was already used"]);
    expect(wrong.body.details).toEqual([{ field: "code", message: "is wrong or was already used" }]);
    expect((await c.post("/api/auth/2fa/totp/enable", { code: good })).status).toBe(200);
    clock.advance(30_000);

    // The sign-in's second step: a used code and a wrong recovery code.
    const again = new ApiClient(server.url);
    expect((await again.login(email, PASSWORD)).body.status).toBe("2fa_required");
    const used = await again.post("/api/auth/2fa/verify", { code: "000000" === good ? "111111" : "000000" });
    expect([used.status, used.body.message]).toEqual([400, "This code is wrong or was already used"]);
    const recovery = await again.post("/api/auth/2fa/verify", { recovery_code: "aaaa-bbbb-cccc-dddd" });
    expect([recovery.status, recovery.body.code, recovery.body.message]).toEqual([400, "invalid_request", "This recovery code is wrong or was already used"]);
    expect(recovery.body.details).toEqual([{ field: "recovery_code", message: "is wrong or was already used" }]);
  });

  it("2: `not a url` is not a full URL (not a matter of spaces); spaces inside an address still say so", async () => {
    const c = await signedInClient(server, `url-words-${engine}@example.com`, "free");
    const words = await c.post("/api/links", { url: "not a url" });
    expect([words.status, words.body.code, words.body.details]).toEqual([
      400,
      "invalid_request",
      [{ field: "url", message: "Enter a full URL such as https://example.com" }],
    ]);
    const spaced = await c.post("/api/links", { url: "https://example.com/a page" });
    expect(spaced.body.details).toEqual([{ field: "url", message: "Remove the spaces from the URL" }]);
    // This service's own address: said as a loop (the unit test covers a host name such as localhost).
    const loop = await c.post("/api/links", { url: `${server.config.origin}/somewhere` });
    expect(loop.body.details).toEqual([{ field: "url", message: "This URL leads back to this service; enter another destination" }]);
  });

  it("3: snip key create --expires takes a day (the end of that day, as the dashboard) as well as an ISO time", async () => {
    const email = `cli-day-${engine}@example.com`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const day = await cli(server, ["key", "create", email, "--name", "day", "--expires", "2027-01-01"]);
    expect([day.code, day.err]).toEqual([0, ""]);
    const iso = await cli(server, ["key", "create", email, "--name", "iso", "--expires", "2027-03-01T12:00:00Z"]);
    expect([iso.code, iso.err]).toEqual([0, ""]);
    const rows = await server.ctx.storage.db.selectFrom("api_keys").select(["name", "expires_at"]).where("user_id", "=", user.id).orderBy("name").execute();
    expect(rows.map((r) => [r.name, Number(r.expires_at)])).toEqual([
      ["day", new Date(2027, 0, 1, 23, 59, 59).getTime()],
      ["iso", Date.UTC(2027, 2, 1, 12)],
    ]);
    const bad = await cli(server, ["key", "create", email, "--name", "bad", "--expires", "2027-02-30"]);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/expires_at: must be an ISO-8601 time/);
  });

  it("5: sso/options says whether an organisation's verified domain can sign in by email (false, then true)", async () => {
    const options = () => new ApiClient(server.url).get("/api/auth/sso/options");
    expect((await options()).body).toEqual({ status: "success", instance: null, password_sign_in: true, password_sign_up: true, email_sso: false });
    const owner = await server.ctx.accounts.create({ email: `ent-${engine}@example.com`, password: PASSWORD, verified: true, plan: "enterprise" });
    const db = server.ctx.storage.db;
    const now = clock.now();
    const connection = {
      id: `conn-${engine}`,
      owner_id: owner.id,
      issuer: "https://id.example.com",
      client_id: "c",
      client_secret_sealed: "x",
      require_sso: 0,
    };
    await db
      .insertInto("sso_connections")
      .values({ ...connection, created_at: now, updated_at: now })
      .execute();
    const domain = { domain: "acme.example", connection_id: connection.id, txt_token: "t", next_action: null, last_checked_at: null, verified_at: null };
    await db
      .insertInto("sso_domains")
      .values({ ...domain, status: "pending", created_at: now, next_check_at: null, failing_since: null })
      .execute();
    // A pending domain signs no one in yet.
    expect((await options()).body.email_sso).toBe(false);
    await db.updateTable("sso_domains").set({ status: "verified", verified_at: now }).where("domain", "=", "acme.example").execute();
    expect((await options()).body.email_sso).toBe(true);
    // An owner who left Enterprise: the connection is kept but signs no one in.
    await db.updateTable("users").set({ plan: "business" }).where("id", "=", owner.id).execute();
    expect((await options()).body.email_sso).toBe(false);
  });
});
