// Emails while the SMTP server is down: kept in the outbox (mail_outbox, sealed), the answer saying they
// were not sent (email_sent, send_confirmed), retried with backoff once a real SMTP server on loopback comes
// up on the same port, each arriving once; across a restart too; and a server that never greets bounds the
// answer by MAIL_WAIT_MS. On SQLite and PostgreSQL.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase } from "../helpers/engines.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, startSmtpServer, tokenOf } from "../helpers/mail.js";
import { within } from "../helpers/wait.js";
import { ManualClock } from "../../src/shared/clock.js";
import { MAIL_RETRY_DELAYS_MS, MAIL_WAIT_MS } from "../../src/mail/mail-queue.js";
import { SMTP_IDLE_TIMEOUT_MS } from "../../src/mail/mailer.js";

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

const outboxRows = (server: TestServer) => server.ctx.storage.db.selectFrom("mail_outbox").selectAll().orderBy("created_at").execute();
const subjects = (smtp: Smtp) => smtp.messages.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]);

describe.each(ENGINES)("the email outbox with SMTP down, then up, on %s", (engine) => {
  let server: TestServer;
  let smtp: Smtp | null = null;
  let port: number;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    port = await freePort();
    server = await startTestServer({ engine, clock, env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it("sign-up, resend, password reset and an invitation are kept and say so; once SMTP is up each arrives once", async () => {
    const c = new ApiClient(server.url);
    const signup = await c.signup("queued@example.com");
    expect(signup.status).toBe(201);
    expect(signup.body.email_sent).toBe(false);
    const resend = await c.post("/api/auth/verify-email/resend");
    expect(resend.status).toBe(200);
    expect(resend.body).toEqual({ status: "success", email_sent: false });

    const anon = await new ApiClient(server.url).init();
    expect((await anon.post("/api/auth/password-reset", { email: "queued@example.com" })).status).toBe(200);
    expect((await anon.post("/api/auth/password-reset", { email: "nobody-here@example.com" })).body).toEqual({ status: "success" });

    const owner = await signedInClient(server, "queued-owner@example.com", "business");
    const inv = await owner.post("/api/team/invitations", { email: "queued-invitee@example.com" });
    expect(inv.status).toBe(201);
    expect(inv.body.invitation.send_confirmed).toBe(false);

    // One verification email (the resend's newer link replaced the first), one reset, one invitation; each
    // tried once, due again a minute later; sealed: no address or link readable in the table.
    const user = await server.ctx.accounts.requireByEmail("queued@example.com");
    const rows = await within(
      5_000,
      () => outboxRows(server),
      (rs) => rs.length === 3 && rs.every((r) => Number(r.attempts) === 1),
    );
    expect(rows.map((r) => r.key).sort()).toEqual([`invitation:${inv.body.invitation.id}`, `reset:${user.id}`, `verify:${user.id}`].sort());
    for (const r of rows) {
      expect(r.last_error).toBe("connection refused");
      expect(Number(r.next_attempt_at)).toBe(clock.now() + (MAIL_RETRY_DELAYS_MS[0] as number));
      expect(r.message_enc).not.toMatch(/example\.com|token=/);
    }

    smtp = await startSmtpServer({ port });
    // Not due yet: nothing is sent before the backoff is over.
    expect(await server.ctx.mailer.retryDue()).toBe(0);
    expect(smtp.messages).toEqual([]);

    clock.advance(MAIL_RETRY_DELAYS_MS[0] as number);
    // Two retry runs at once (as two instances would): each message is claimed by one.
    const tried = await Promise.all([server.ctx.mailer.retryDue(), server.ctx.mailer.retryDue()]);
    expect(tried[0] + tried[1]).toBe(3);
    expect(subjects(smtp).sort()).toEqual(["Confirm your email for snip", "Reset your snip password", expect.stringContaining("invit")].sort());
    expect(smtp.messages.map((m) => m.to[0]).sort()).toEqual(["queued-invitee@example.com", "queued@example.com", "queued@example.com"]);
    expect(await outboxRows(server)).toEqual([]);

    // The links work: the verification link is the resend's (the first one's email was never sent).
    const verify = smtp.messages.find((m) => /Confirm your email/.test(m.raw))!;
    const ok = await c.post("/api/auth/verify-email", { token: tokenOf(linkIn(verify.raw, "/app/verify-email?token=")) });
    expect(ok.status).toBe(200);
    // The invitation now shows as sent.
    expect((await owner.get("/api/team")).body.invitations[0].send_confirmed).toBe(true);

    // Once, not twice: later runs find nothing.
    clock.advance(60 * 60_000);
    expect(await server.ctx.mailer.retryDue()).toBe(0);
    expect(smtp.messages).toHaveLength(3);

    // With SMTP up, the answer says the email went.
    const second = new ApiClient(server.url);
    expect((await second.signup("direct@example.com")).body.email_sent).toBe(true);
    expect(smtp.messages).toHaveLength(4);
  });
});

describe.each(ENGINES)("the email outbox across a restart on %s", (engine) => {
  it("a message queued before a restart is sent once by the next server", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "snip-outbox-"));
    const db = await createTestDatabase(engine);
    const clock = new ManualClock(Date.now());
    const env = { SMTP_URL: `smtp://127.0.0.1:${port}` };
    let smtp: Smtp | null = null;
    let second: TestServer | null = null;
    try {
      const first = await startTestServer({ databaseUrl: db.databaseUrl, dataDir, clock, env });
      expect((await new ApiClient(first.url).signup("restart@example.com")).body.email_sent).toBe(false);
      await first.close();

      smtp = await startSmtpServer({ port });
      second = await startTestServer({ databaseUrl: db.databaseUrl, dataDir, clock, env });
      expect(await second.ctx.mailer.pending()).toBe(1);
      clock.advance(MAIL_RETRY_DELAYS_MS[0] as number);
      expect(await second.ctx.mailer.retryDue()).toBe(1);
      expect(smtp.messages.map((m) => m.to)).toEqual([["restart@example.com"]]);
      expect(await second.ctx.mailer.pending()).toBe(0);
      clock.advance(60 * 60_000);
      expect(await second.ctx.mailer.retryDue()).toBe(0);
      expect(smtp.messages).toHaveLength(1);
    } finally {
      await second?.close();
      await smtp?.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("an SMTP server that accepts connections and never greets", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let server: TestServer;

  beforeAll(async () => {
    silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await server?.close();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("sign-up answers within MAIL_WAIT_MS with email_sent false; the attempt's failure is then kept for a retry", async () => {
    const started = Date.now();
    const r = await new ApiClient(server.url).signup("greeting@example.com");
    const took = Date.now() - started;
    expect(r.status).toBe(201);
    expect(r.body.email_sent).toBe(false);
    expect(took).toBeGreaterThanOrEqual(MAIL_WAIT_MS - 100);
    expect(took).toBeLessThan(MAIL_WAIT_MS + 3_000);
    // The attempt goes on under its claim until the transport gives up, then waits for its retry.
    const rows = await within(
      SMTP_IDLE_TIMEOUT_MS + 20_000,
      () => outboxRows(server),
      (rs) => rs.length === 1 && Number(rs[0]!.attempts) === 1,
    );
    expect(rows.map((r) => [Number(r.attempts), r.last_error])).toEqual([[1, "timed out"]]);
  });
});
