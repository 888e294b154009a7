// Accounts over HTTP on every engine: sign-up, verification via the outbox, sign-in, throttling,
// sign-out, password change and reset, suspension.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf, waitForLink } from "../helpers/mail.js";
import { createLink } from "../helpers/links.js";
import { visit } from "../helpers/visit.js";

describe.each(ENGINES)("accounts on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it("signs up, stores an argon2id hash, and verifies the email through the emailed link", async () => {
    const c = new ApiClient(server.url);
    const r = await c.signup("New.User@Example.com", "correct horse 1", "Ada");
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ email: "new.user@example.com", name: "Ada", email_verified: false, plan: "free", status: "active", picture_url: null });
    expect(r.headers.get("set-cookie")).toMatch(/snip_sid=[^;]+;.*HttpOnly/i);
    expect(r.headers.get("set-cookie")).toMatch(/SameSite=Lax/i);

    const row = await server.ctx.accounts.byEmail("new.user@example.com");
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.password_hash).not.toContain("correct horse 1");

    const mails = readOutbox(server.outboxDir).filter((m) => m.includes("new.user@example.com"));
    expect(mails).toHaveLength(1);
    const link = linkIn(mails[0]!, "/app/verify-email?token=");
    expect(link.startsWith(server.config.origin)).toBe(true);

    const bad = await c.post("/api/auth/verify-email", { token: "x".repeat(43) });
    expect(bad.status).toBe(400);
    const ok = await c.post("/api/auth/verify-email", { token: tokenOf(link) });
    expect(ok.status).toBe(200);
    expect(ok.body.user.email_verified).toBe(true);
    // Opened again (a second click, a mail scanner): the account is verified, and the answer says so.
    const again = await c.post("/api/auth/verify-email", { token: tokenOf(link) });
    expect([again.status, again.body.already_verified]).toEqual([200, true]);
  });

  it("refuses a duplicate email, short passwords and unknown fields", async () => {
    const c = new ApiClient(server.url);
    await c.signup("dup@example.com");
    const d = new ApiClient(server.url);
    expect((await d.signup("DUP@example.com")).status).toBe(409);
    const short = await d.signup("short@example.com", "123456789");
    expect(short.status).toBe(400);
    expect(short.body.details[0].field).toBe("password");
    const bad = await d.signup("not-an-email", "correct horse 1");
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe("email");
    const unknown = await d.post("/api/auth/signup", { email: "u@example.com", password: "correct horse 1", admin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("invalid_request");
    const types = await d.post("/api/auth/signup", { email: 5, password: ["x"] });
    expect(types.status).toBe(400);
  });

  it("rotates the session id at sign-in and signs out", async () => {
    await server.ctx.accounts.create({ email: "rot@example.com", password: "correct horse 1" });
    const c = await new ApiClient(server.url).init();
    const before = c.cookie;
    const csrfBefore = c.csrf;
    const r = await c.login("rot@example.com");
    expect(r.status).toBe(200);
    expect(c.cookie).not.toBe(before);
    expect(c.csrf).not.toBe(csrfBefore);
    expect((await c.get("/api/profile")).status).toBe(200);
    const stolen = c.cookie;
    expect((await c.post("/api/auth/logout")).status).toBe(200);
    const after = await fetch(`${server.url}/api/profile`, { headers: { cookie: stolen! } });
    expect(after.status).toBe(401);
  });

  it("answers wrong credentials with 401 and throttles per email with Retry-After", async () => {
    await server.ctx.accounts.create({ email: "throttle@example.com", password: "correct horse 1" });
    const c = await new ApiClient(server.url).init();
    const unknown = await c.login("nobody@example.com", "whatever whatever");
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe("invalid_credentials");
    for (let i = 0; i < 10; i++) expect((await c.login("throttle@example.com", "wrong password!")).status).toBe(401);
    const limited = await c.login("throttle@example.com", "correct horse 1");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("changes the password only with the current one, and ends other sessions", async () => {
    const a = await signedInClient(server, "change@example.com");
    const b = new ApiClient(server.url);
    await b.login("change@example.com");
    const wrong = await a.post("/api/profile/password", { current_password: "not it at all", new_password: "new password 22" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details[0].field).toBe("current_password");
    const ok = await a.post("/api/profile/password", { current_password: "correct horse 1", new_password: "new password 22" });
    expect(ok.status).toBe(200);
    expect((await a.get("/api/profile")).status).toBe(200);
    expect((await b.get("/api/profile")).status).toBe(401);
    const c = new ApiClient(server.url);
    expect((await c.login("change@example.com", "correct horse 1")).status).toBe(401);
    expect((await c.login("change@example.com", "new password 22")).status).toBe(200);
  });

  it("resets a forgotten password through the emailed link, once", async () => {
    await server.ctx.accounts.create({ email: "reset@example.com", password: "correct horse 1" });
    const c = await new ApiClient(server.url).init();
    expect((await c.post("/api/auth/password-reset", { email: "ghost@example.com" })).status).toBe(200);
    expect((await c.post("/api/auth/password-reset", { email: "reset@example.com" })).status).toBe(200);
    // The answer does not wait for the mail (it must not tell accounts apart by its time): wait for it here.
    const token = tokenOf(await waitForLink(server.outboxDir, "reset@example.com", "/app/reset-password/confirm?token="));
    expect(readOutbox(server.outboxDir).some((m) => m.includes("ghost@example.com"))).toBe(false);
    const weak = await c.post("/api/auth/password-reset/confirm", { token, password: "short" });
    expect(weak.status).toBe(400);
    expect((await c.post("/api/auth/password-reset/confirm", { token, password: "brand new pass 1" })).status).toBe(200);
    expect((await c.post("/api/auth/password-reset/confirm", { token, password: "brand new pass 2" })).status).toBe(400);
    expect((await c.login("reset@example.com", "brand new pass 1")).status).toBe(200);
  });

  it("refuses writes from a suspended account with 403 account_inactive", async () => {
    const c = await signedInClient(server, "suspended@example.com");
    await server.ctx.accounts.setStatus("suspended@example.com", "suspended");
    const r = await c.patch("/api/profile", { name: "x" });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("account_inactive");
    expect((await c.get("/api/profile")).body.user.status).toBe("suspended");
  });

  it("cancels a subscription and deletes an account, each needing its own confirmation", async () => {
    const c = await signedInClient(server, "leaver@example.com", "pro");
    const cancel = await c.post("/api/subscription/cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.body.user.plan).toBe("free");
    expect((await c.post("/api/subscription/cancel")).status).toBe(409);
    // A link visited before the deletion sits in the redirect cache: the deletion must drop it at once.
    const link = await createLink(c, { url: "https://example.com/leaving", alias: "leaver-link" });
    expect(await visit(server.url, `/${link.alias}`)).toBe(302);
    const wrong = await c.delete("/api/account", { password: "not my password" });
    expect(wrong.status).toBe(400);
    expect(await visit(server.url, `/${link.alias}`)).toBe(302);
    expect((await c.delete("/api/account", { password: "correct horse 1" })).status).toBe(200);
    expect(await server.ctx.accounts.byEmail("leaver@example.com")).toBeNull();
    expect(await visit(server.url, `/${link.alias}`)).toBe(404);
    expect((await c.get("/api/profile")).status).toBe(401);
  });
});
