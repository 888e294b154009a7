// Mail through a real SMTP server on loopback when SMTP_URL is set.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { linkIn, readOutbox, startSmtpServer, tokenOf } from "../helpers/mail.js";
import { within } from "../helpers/wait.js";

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let server: TestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ env: { SMTP_URL: smtp.url, MAIL_FROM: "snip <noreply@snip.test>" } });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

it("delivers the verification email over SMTP, and the link verifies the account", async () => {
  const c = new ApiClient(server.url);
  expect((await c.signup("smtp@example.com")).status).toBe(201);
  expect(smtp.messages).toHaveLength(1);
  const msg = smtp.messages[0]!;
  expect(msg.to).toEqual(["smtp@example.com"]);
  expect(msg.from).toBe("noreply@snip.test");
  expect(msg.raw).toMatch(/Subject: Confirm your email for snip/);
  const ok = await c.post("/api/auth/verify-email", { token: tokenOf(linkIn(msg.raw, "/app/verify-email?token=")) });
  expect(ok.status).toBe(200);
  expect(ok.body.user.email_verified).toBe(true);
  expect(readOutbox(server.outboxDir)).toEqual([]);
});

it("delivers the password-reset email over SMTP", async () => {
  const c = await new ApiClient(server.url).init();
  await c.post("/api/auth/password-reset", { email: "smtp@example.com" });
  // The answer does not wait for the mail (it must not tell accounts apart by its time): wait for it here.
  await within(
    10_000,
    async () => smtp.messages.length,
    (n) => n === 2,
  );
  const msg = smtp.messages.at(-1)!;
  expect(msg.raw).toMatch(/Subject: Reset your snip password/);
  expect(linkIn(msg.raw, "/app/reset-password/confirm?token=")).toContain(server.config.origin);
});
