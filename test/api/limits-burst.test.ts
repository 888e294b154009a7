// Every limit holds under a burst (issue 53): concurrent attempts with wrong input get exactly the limit
// checked and the rest 429, on both engines, because each check takes its slot before the slow part.
// Addresses come from X-Forwarded-For (TRUST_PROXY = loopback); the clock stands still.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { sha256Hex } from "../../src/shared/ids.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { SoftAuthenticator } from "../helpers/soft-authenticator.js";
import { startSmtpServer } from "../helpers/mail.js";
import { waitFor } from "../helpers/wait.js";

const PASSWORD = "correct horse 1";
const WINDOW_S = 15 * 60;

/** How many answers had each status: { 401: 10, 429: 10 }. */
function tally(statuses: number[]): Record<number, number> {
  const t: Record<number, number> = {};
  for (const s of statuses) t[s] = (t[s] ?? 0) + 1;
  return t;
}

describe.each(ENGINES)("limits under a burst on %s", (engine) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = new ManualClock(1_800_000_000_000);
  let n = 0;
  const from = (ip: string) => ({ "x-forwarded-for": ip, accept: "application/json" });
  const burst = async (count: number, send: (i: number) => Promise<{ status: number }>) =>
    tally((await Promise.all(Array.from({ length: count }, (_, i) => send(i)))).map((r) => r.status));
  const fresh = () => new ApiClient(server.url).init();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1", SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it("sign-in: 20 wrong passwords at once for one account, exactly 10 checked; then the right one is 429", async () => {
    const email = `burst-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await fresh();
    const ip = from("198.51.100.10");
    expect(await burst(20, (i) => c.request("POST", "/api/auth/login", { email, password: `wrong ${i}` }, ip))).toEqual({ 401: 10, 429: 10 });
    const right = await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, from("198.51.100.11"));
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBe(WINDOW_S);
  });

  it("sign-in: 60 wrong passwords at once from one address over 60 accounts, exactly 50 checked; refused ones charge no account", async () => {
    const c = await fresh();
    const ip = from("198.51.100.20");
    const emails = Array.from({ length: 60 }, () => `nobody-${++n}@example.com`);
    expect(await burst(60, (i) => c.request("POST", "/api/auth/login", { email: emails[i], password: "wrong" }, ip))).toEqual({ 401: 50, 429: 10 });
    // The address's window was full for 10 of them: their account slot was given back, not kept.
    const buckets = emails.map((e) => `login:email:${sha256Hex(e)}`);
    const kept = await server.ctx.storage.db.selectFrom("rate_events").select("id").where("bucket", "in", buckets).execute();
    expect(kept).toHaveLength(50);
    const email = `burst-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const right = await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, ip);
    expect([right.status, right.body.message]).toEqual([429, expect.stringMatching(/address/)]);
  });

  it("password change: 15 wrong current passwords at once, exactly 10 checked; then the right one is 429", async () => {
    const email = `burst-${++n}@example.com`;
    const c = await signedInClient(server, email);
    const ip = from("198.51.100.30");
    const change = (current: string) => c.request("POST", "/api/profile/password", { current_password: current, new_password: "another pass 22" }, ip);
    expect(await burst(15, (i) => change(`wrong ${i}`))).toEqual({ 400: 10, 429: 5 });
    expect((await change(PASSWORD)).status).toBe(429);
  });

  it("second step: 30 wrong codes at once over 5 pending sign-ins of one account, exactly 5 checked; then the right code is 429", async () => {
    const email = `burst-${++n}@example.com`;
    const user = await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const { secret } = await server.ctx.twoFactor.setup(user);
    const codes = await server.ctx.twoFactor.enable(user, totpCode(secretBytes(secret), clock.now()));
    clock.advance(30_000);
    const near = [-30_000, 0, 30_000].map((d) => totpCode(secretBytes(secret), clock.now() + d));
    const wrong = ["000000", "111111", "222222", "333333"].find((w) => !near.includes(w)) as string;
    const [first, ...others] = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const c = await fresh();
        expect((await c.login(email, PASSWORD)).body.status).toBe("2fa_required");
        return c;
      }),
    );
    const pending = [first as ApiClient, ...others];
    // TOTP codes and recovery codes alike: one window of wrong codes for the account.
    const answers = await burst(30, (i) =>
      (pending[i % 5] as ApiClient).post("/api/auth/2fa/verify", i % 2 ? { code: wrong } : { recovery_code: "aaaaa-bbbbb" }),
    );
    expect(answers).toEqual({ 400: 5, 429: 25 });
    const right = await (first as ApiClient).post("/api/auth/2fa/verify", { code: near[1] });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBe(WINDOW_S);
    expect((await (others[0] as ApiClient).post("/api/auth/2fa/verify", { recovery_code: codes[0] })).status).toBe(429);
  });

  it("passkeys: 130 sign-in options at once from one address, exactly 100; 70 refused answers at once, exactly 50 checked", async () => {
    const c = await fresh();
    expect(await burst(130, () => c.request("POST", "/api/auth/passkeys/login/options", undefined, from("198.51.100.40")))).toEqual({ 200: 100, 429: 30 });
    // A credential the server does not know, answering a challenge it never gave.
    const auth = new SoftAuthenticator(server.config.origin);
    auth.register({ challenge: "A".repeat(43), rp: { id: new URL(server.config.origin).hostname }, user: { id: "stranger" } });
    const answer = auth.assert({ challenge: "B".repeat(43) });
    const ip = from("198.51.100.41");
    expect(await burst(70, () => c.request("POST", "/api/auth/passkeys/login/verify", { response: answer }, ip))).toEqual({ 400: 50, 429: 20 });
    // The address's failures are the password form's too.
    const email = `burst-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    expect((await c.request("POST", "/api/auth/login", { email, password: PASSWORD }, ip)).status).toBe(429);
  });

  it("link password: 25 wrong guesses at once from one address, exactly 10 checked; then the right one is 429", async () => {
    const owner = await signedInClient(server, `burst-${++n}@example.com`, "pro");
    await createLink(owner, { url: "https://example.com/burst", alias: "burst-pw", password: "open sesame" });
    const guess = (password: string) =>
      fetch(`${server.url}/burst-pw`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "198.51.100.50", accept: "application/json" },
        body: new URLSearchParams({ password }).toString(),
      });
    expect(await burst(25, (i) => guess(`guess ${i}`))).toEqual({ 401: 10, 429: 15 });
    expect((await guess("open sesame")).status).toBe(429);
  });

  it("password reset: 10 requests at once for one account, exactly 3 emails", async () => {
    const email = `burst-${++n}@example.com`;
    await server.ctx.accounts.create({ email, password: PASSWORD, verified: true });
    const c = await fresh();
    expect(await burst(10, () => c.post("/api/auth/password-reset", { email }))).toEqual({ 200: 10 });
    const toIt = () => smtp.messages.filter((m) => m.to.includes(email)).length;
    await waitFor(() => toIt() >= 3);
    // Room for a late fourth to arrive, had one gone.
    await new Promise((r) => setTimeout(r, 200));
    expect(toIt()).toBe(3);
    const kept = await server.ctx.storage.db.selectFrom("rate_events").select("id").where("bucket", "like", "reset:%").execute();
    expect(kept).toHaveLength(3);
  });

  it("sign-ups: 30 at once from one address, exactly 20 looked at; verification resends: 15 at once, exactly 5", async () => {
    const c = await fresh();
    const ip = from("198.51.100.60");
    // A name the service refuses (after the count): no account made, no hash spent.
    const signUps = await burst(30, (i) =>
      c.request("POST", "/api/auth/signup", { email: `signup-${i}-${++n}@example.com`, password: PASSWORD, name: "n".repeat(101) }, ip),
    );
    expect(signUps).toEqual({ 400: 20, 429: 10 });

    await server.ctx.accounts.create({ email: `unverified-${++n}@example.com`, password: PASSWORD });
    const u = new ApiClient(server.url);
    expect((await u.login(`unverified-${n}@example.com`, PASSWORD)).status).toBe(200);
    expect(await burst(15, () => u.post("/api/auth/verify-email/resend"))).toEqual({ 200: 5, 429: 10 });
  });

  it("single sign-on starts: 90 at once from one address, exactly 60", async () => {
    const c = await fresh();
    const ip = from("198.51.100.70");
    expect(await burst(90, () => c.request("GET", "/api/auth/sso/start?email=someone%40nowhere.example", undefined, ip))).toEqual({ 404: 60, 429: 30 });
  });

  it("signed-out links: 45 creations at once from one address, exactly 30 made", async () => {
    const c = await fresh();
    const ip = from("198.51.100.80");
    expect(await burst(45, (i) => c.request("POST", "/api/links", { url: `https://example.com/anon-${i}` }, ip))).toEqual({ 201: 30, 429: 15 });
  });

  it("team invitation emails: with one of the owner's 20 an hour left, 5 at once send exactly one", async () => {
    // An owner invites two collaborators at most (SPEC.md), so the hour's 19 earlier emails are put in its window.
    const email = `burst-${++n}@example.com`;
    const owner = await signedInClient(server, email, "enterprise");
    const id = (await server.ctx.accounts.byEmail(email))!.id;
    await server.ctx.storage.db
      .insertInto("rate_events")
      .values(Array.from({ length: 19 }, () => ({ bucket: `team-invite-mail:${id}`, at: clock.now() - 60_000 })))
      .execute();
    expect(await burst(5, (i) => owner.post("/api/team/invitations", { email: `invitee-${i}-${n}@example.com` }))).toEqual({ 201: 1, 429: 4 });
  });
});
