// Password checks behind a session (password change, account deletion) are throttled like sign-in:
// they share the account's and the address's failure windows with it, then 429 with Retry-After.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";

const WINDOW_S = 15 * 60;
const PASSWORD = "correct horse 1";

describe.each(ENGINES)("password checks behind a session on %s", (engine) => {
  let server: TestServer;
  const clock = new ManualClock();
  let n = 0;
  /** A signed-in client whose requests come from `ip` (the server trusts X-Forwarded-For from loopback). */
  async function user(ip: string): Promise<{ c: ApiClient; email: string; from: Record<string, string> }> {
    const email = `pw-${++n}@example.com`;
    const from = { "x-forwarded-for": ip };
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await new ApiClient(server.url).init();
    expect((await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, from)).status).toBe(200);
    return { c, email, from };
  }
  const changePassword = (u: { c: ApiClient; from: Record<string, string> }, current: string) =>
    u.c.request("POST", "/api/profile/password", { current_password: current, new_password: "another pass 22" }, u.from);
  const deleteAccount = (u: { c: ApiClient; from: Record<string, string> }, password: string) => u.c.request("DELETE", "/api/account", { password }, u.from);

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1" } });
  });
  afterAll(async () => server?.close());

  it("POST /api/profile/password: 10 wrong current passwords, then 429 even for the right one, until the window passes", async () => {
    const u = await user("198.51.100.1");
    for (let i = 0; i < 10; i++) {
      const wrong = await changePassword(u, `wrong guess ${i}`);
      expect(wrong.status).toBe(400);
      expect(wrong.body.details[0].field).toBe("current_password");
      clock.advance(1000);
    }
    const limited = await changePassword(u, PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status: "error", code: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBe(WINDOW_S - 10);
    // The same window as the sign-in form: no detour through it.
    const login = await new ApiClient(server.url).init();
    expect((await login.request("POST", "/api/auth/login", { email: u.email, password: PASSWORD }, u.from)).status).toBe(429);
    expect(await server.ctx.accounts.signIn(u.email, PASSWORD, "203.0.113.250").catch((e: { code: string }) => e.code)).toBe("rate_limited");

    clock.advance(WINDOW_S * 1000 - 10_000 + 1);
    expect((await changePassword(u, PASSWORD)).status).toBe(200);
  });

  it("DELETE /api/account: 10 wrong passwords, then 429 and the account stays; the window shared with sign-in failures", async () => {
    const u = await user("198.51.100.2");
    const login = await new ApiClient(server.url).init();
    for (let i = 0; i < 4; i++)
      expect((await login.request("POST", "/api/auth/login", { email: u.email, password: "nope nope nope" }, u.from)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await changePassword(u, "still not it")).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await deleteAccount(u, "not my password")).status).toBe(400);
    const limited = await deleteAccount(u, PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBe(WINDOW_S);
    expect(await server.ctx.accounts.byEmail(u.email)).not.toBeNull();
    clock.advance(WINDOW_S * 1000 + 1);
    expect((await deleteAccount(u, PASSWORD)).status).toBe(200);
    expect(await server.ctx.accounts.byEmail(u.email)).toBeNull();
  });

  it("a right password clears the account's failures; 50 failures from one address block it for every account, not other addresses", async () => {
    const u = await user("198.51.100.3");
    for (let i = 0; i < 9; i++) expect((await changePassword(u, "wrong again")).status).toBe(400);
    expect((await changePassword(u, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await deleteAccount(u, "wrong again")).status).toBe(400);
    clock.advance(WINDOW_S * 1000 + 1);

    const users = await Promise.all(Array.from({ length: 5 }, () => user("198.51.100.4")));
    for (const v of users) for (let i = 0; i < 10; i++) expect((await deleteAccount(v, "wrong guess")).status).toBe(400);
    const fresh = await user("198.51.100.5");
    const sameAddress = { c: fresh.c, from: { "x-forwarded-for": "198.51.100.4" } };
    const limited = await deleteAccount(sameAddress, PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/address/);
    expect((await changePassword(sameAddress, PASSWORD)).status).toBe(429);
    expect((await changePassword(fresh, PASSWORD)).status).toBe(200);
  });
});
