// Teams over HTTP with a real SMTP server on loopback and an injected clock: every row of docs/teams.md's
// invitation table, every refusal of docs/api.md's Team section, sending confirmed or not, the lists kept apart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, mimePart, startSmtpServer, tokenOf, type ReceivedMail } from "../helpers/mail.js";
import { ManualClock } from "../../src/shared/clock.js";
import { sha256Hex } from "../../src/shared/ids.js";

const DAY = 86_400_000;
const ACCEPT_PATH = "/app/invitations/accept?token=";

describe.each(ENGINES)("team invitations on %s", (engine) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}@example.com`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({ engine, clock, env: { SMTP_URL: smtp.url, MAIL_FROM: "snip <noreply@snip.test>", ENTERPRISE_MEMBERS_MAX: "3" } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const mailTo = (email: string, since = 0): ReceivedMail[] => smtp.messages.slice(since).filter((m) => m.to.includes(email.toLowerCase()));

  async function owner(plan = "business", name?: string): Promise<{ client: ApiClient; email: string; id: string }> {
    const email = unique("owner");
    await server.ctx.accounts.create({ email, password: "correct horse 1", plan, verified: true, name });
    const client = new ApiClient(server.url);
    await client.login(email);
    return { client, email, id: (await client.get("/api/profile")).body.user.id };
  }

  async function person(plan = "free", verified = true): Promise<{ client: ApiClient; email: string; id: string }> {
    const email = unique("person");
    const client = verified ? await signedInClient(server, email, plan) : await unverifiedClient(email);
    return { client, email, id: (await client.get("/api/profile")).body.user.id };
  }

  async function unverifiedClient(email: string): Promise<ApiClient> {
    await server.ctx.accounts.create({ email, password: "correct horse 1", verified: false });
    const c = new ApiClient(server.url);
    await c.login(email);
    return c;
  }

  /** Invites `email` and returns the invitation and the token of the emailed link. */
  async function invite(from: ApiClient, email: string) {
    const before = smtp.messages.length;
    const r = await from.post("/api/team/invitations", { email });
    expect(r.status, r.text).toBe(201);
    const msg = mailTo(email, before).at(-1);
    if (!msg) throw new Error(`no mail to ${email}`);
    return { invitation: r.body.invitation, token: tokenOf(linkIn(msg.raw, ACCEPT_PATH)), msg };
  }

  async function memberOf(o: { client: ApiClient }, plan = "free") {
    const m = await person(plan);
    const { token } = await invite(o.client, m.email);
    const r = await m.client.post("/api/invitations/accept", { token });
    expect(r.status, r.text).toBe(200);
    return m;
  }

  it("invites by email over SMTP: text and HTML parts, the inviter's name escaped, the token random and stored hashed, 7 days", async () => {
    const o = await owner("business", `Ann <b>"&'`);
    const invitee = await person("free"); // already has an account: the invitation is still pending
    const { invitation, token, msg } = await invite(o.client, invitee.email.toUpperCase());
    expect(invitation).toEqual({
      id: expect.any(String),
      email: invitee.email,
      state: "pending",
      sent_at: new Date(clock.now()).toISOString(),
      send_confirmed: true,
      expires_at: new Date(clock.now() + 7 * DAY).toISOString(),
      can_resend_at: new Date(clock.now() + 60_000).toISOString(),
      role: "member",
    });
    expect(msg.from).toBe("noreply@snip.test");
    const text = mimePart(msg.raw, "text/plain");
    const html = mimePart(msg.raw, "text/html");
    expect(text).toContain(`Ann <b>"&' (${o.email}) invited you`);
    expect(text).toContain(`${server.config.origin}${ACCEPT_PATH}${token}`);
    expect(html).toContain("Ann &#60;b&#62;&#34;&#38;&#39;");
    expect(html).not.toContain('<b>"');
    expect(html).toContain(`href="${server.config.origin}${ACCEPT_PATH}${token}"`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const stored = await server.ctx.storage.db.selectFrom("team_invitation_tokens").selectAll().where("invitation_id", "=", invitation.id).execute();
    expect(stored.map((t) => t.token_hash)).toEqual([sha256Hex(token)]);
    const dump = JSON.stringify(await server.ctx.storage.db.selectFrom("team_invitations").selectAll().execute());
    expect(dump).not.toContain(token);

    const team = (await o.client.get("/api/team")).body;
    expect(team).toEqual({ status: "success", owner_id: o.id, role: "owner", members: [], invitations: [invitation], memberships: [], collaborators_max: 2 });
    // A second invitation email is a different random token.
    const other = await invite(o.client, unique("second"));
    expect(other.token).not.toBe(token);
  });

  it("refuses: plan below Business, yourself, a malformed address, unknown fields, a duplicate, a member, a third collaborator", async () => {
    for (const plan of ["free", "pro"]) {
      const p = await owner(plan);
      const r = await p.client.post("/api/team/invitations", { email: unique("x") });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: "plan_required", required_plan: "business" });
    }
    const o = await owner("enterprise");
    expect((await o.client.post("/api/team/invitations", { email: o.email.toUpperCase() })).body.code).toBe("conflict");
    for (const bad of ["not-an-email", "a@b", "x".repeat(300) + "@example.com", "a b@example.com", "<script>@example.com"]) {
      const r = await o.client.post("/api/team/invitations", { email: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    expect((await o.client.post("/api/team/invitations", { email: unique("x"), colour: "red" })).status).toBe(400);
    expect((await o.client.post("/api/team/invitations", { email: unique("x"), role: "owner" })).status).toBe(400);
    expect((await o.client.post("/api/team/invitations", "{not json", { "content-type": "application/json" })).status).toBe(400);
    expect((await o.client.post("/api/team/invitations", { email: 42 })).status).toBe(400);

    const m = await memberOf(o);
    const member = await o.client.post("/api/team/invitations", { email: m.email });
    expect(member.status).toBe(409);
    expect(member.body.code).toBe("conflict");
    const pendingEmail = unique("pending");
    await invite(o.client, pendingEmail);
    expect((await o.client.post("/api/team/invitations", { email: pendingEmail })).body.code).toBe("conflict");
    // Enterprise invites two collaborators, as Business does (SPEC.md), members and pending invitations together:
    // the third answers 403 limit_reached, whatever ENTERPRISE_MEMBERS_MAX (3 here) allows single sign-on.
    const third = await o.client.post("/api/team/invitations", { email: unique("third") });
    expect([third.status, third.body.code, third.body.limit]).toEqual([403, "limit_reached", 2]);
    // Nothing half-written: still one member and one pending invitation.
    const team = (await o.client.get("/api/team")).body;
    expect(team.collaborators_max).toBe(2);
    expect(team.members.map((m: { joined_by: string }) => m.joined_by)).toEqual(["invitation"]);
    expect(team.invitations.map((i: { email: string }) => i.email)).toEqual([pendingEmail]);
    // Business: two.
    const biz = await owner("business");
    await invite(biz.client, unique("b1"));
    await invite(biz.client, unique("b2"));
    const b3 = await biz.client.post("/api/team/invitations", { email: unique("b3") });
    expect([b3.status, b3.body.code, b3.body.limit]).toEqual([403, "limit_reached", 2]);
    expect((await biz.client.get("/api/team")).body.collaborators_max).toBe(2);
    // A suspended owner cannot invite.
    await server.ctx.accounts.setStatus(o.email, "suspended");
    expect((await o.client.post("/api/team/invitations", { email: unique("x") })).body.code).toBe("account_inactive");
    await server.ctx.accounts.setStatus(o.email, "active");
  });

  it("accept: every refusal names its condition; the invitee becomes a member; accepting twice is harmless", async () => {
    const o = await owner();
    const invitee = await person("free", false); // signed up, not verified yet
    const { token } = await invite(o.client, invitee.email);

    const anon = await new ApiClient(server.url).init();
    expect(await codeOf(anon.post("/api/invitations/accept", { token }))).toEqual([401, "unauthenticated", undefined]);
    const stranger = await person("business");
    expect(await codeOf(stranger.client.post("/api/invitations/accept", { token }))).toEqual([403, "forbidden", "wrong_account"]);
    expect(await codeOf(invitee.client.post("/api/invitations/accept", { token }))).toEqual([403, "email_unverified", "email_unverified"]);
    expect(await codeOf(invitee.client.post("/api/invitations/accept", { token: "A".repeat(43) }))).toEqual([404, "not_found", "unknown"]);
    expect(await codeOf(invitee.client.post("/api/invitations/accept", { token: "short" }))).toEqual([404, "not_found", "unknown"]);
    expect((await invitee.client.post("/api/invitations/accept", { token, extra: 1 })).status).toBe(400);
    expect((await invitee.client.post("/api/invitations/accept", {})).status).toBe(400);

    // The invitee verifies through the emailed link, then accepts.
    await server.ctx.storage.db.updateTable("users").set({ email_verified_at: clock.now() }).where("email", "=", invitee.email).execute();
    const ok = await invitee.client.post("/api/invitations/accept", { token });
    expect(ok.status).toBe(200);
    expect(ok.body.membership).toEqual({
      owner_id: o.id,
      owner_email: o.email,
      owner_name: "",
      joined_at: new Date(clock.now()).toISOString(),
      active: true,
      requires_2fa: false,
      role: "member",
    });
    const again = await invitee.client.post("/api/invitations/accept", { token });
    expect(again.status).toBe(200);
    expect(again.body.membership).toEqual(ok.body.membership);
    // Someone else with the used link: it is no longer pending.
    expect(await codeOf(stranger.client.post("/api/invitations/accept", { token }))).toEqual([409, "conflict", "used"]);

    const team = (await o.client.get("/api/team")).body;
    expect(team.members).toEqual([
      {
        user_id: invitee.id,
        email: invitee.email,
        name: "",
        joined_at: ok.body.membership.joined_at,
        joined_by: "invitation",
        two_factor: false,
        role: "member",
      },
    ]);
    expect(team.invitations).toEqual([]);
    expect((await invitee.client.get("/api/team")).body.memberships).toEqual([ok.body.membership]);

    // After leaving, the old link cannot bring the member back.
    expect((await invitee.client.delete(`/api/memberships/${o.id}`)).status).toBe(200);
    expect(await codeOf(invitee.client.post("/api/invitations/accept", { token }))).toEqual([409, "conflict", "used"]);
  });

  it("expiry: the link works until 7 days after sending, then 410 expired (and the preview says so)", async () => {
    const o = await owner();
    const a = await person();
    const b = await person();
    const ta = (await invite(o.client, a.email)).token;
    const tb = (await invite(o.client, b.email)).token;
    clock.advance(7 * DAY - 1);
    expect((await a.client.post("/api/invitations/accept", { token: ta })).status).toBe(200);
    clock.advance(1);
    expect(await codeOf(b.client.post("/api/invitations/accept", { token: tb }))).toEqual([410, "expired", "expired"]);
    expect((await b.client.post("/api/invitations/preview", { token: tb })).body.invitation.state).toBe("expired");
    // A resend gives a fresh 7-day link.
    const before = smtp.messages.length;
    const id = (await o.client.get("/api/team")).body.invitations[0].id;
    expect((await o.client.post(`/api/team/invitations/${id}/resend`)).status).toBe(200);
    const fresh = tokenOf(linkIn(mailTo(b.email, before)[0]!.raw, ACCEPT_PATH));
    expect((await b.client.post("/api/invitations/accept", { token: fresh })).status).toBe(200);
  });

  it("resend: 429 with Retry-After within a minute, then a new link and the previous one invalid at once", async () => {
    const o = await owner();
    const m = await person();
    const { invitation, token } = await invite(o.client, m.email);
    clock.advance(20_000);
    const early = await o.client.post(`/api/team/invitations/${invitation.id}/resend`);
    expect(early.status).toBe(429);
    expect(early.body.code).toBe("rate_limited");
    expect(early.headers.get("retry-after")).toBe("40");
    clock.advance(40_000);
    const before = smtp.messages.length;
    const ok = await o.client.post(`/api/team/invitations/${invitation.id}/resend`);
    expect(ok.status).toBe(200);
    expect(ok.body.invitation).toMatchObject({
      id: invitation.id,
      state: "pending",
      send_confirmed: true,
      sent_at: new Date(clock.now()).toISOString(),
      can_resend_at: new Date(clock.now() + 60_000).toISOString(),
      expires_at: new Date(clock.now() + 7 * DAY).toISOString(),
    });
    const fresh = tokenOf(linkIn(mailTo(m.email, before)[0]!.raw, ACCEPT_PATH));
    expect(fresh).not.toBe(token);
    expect(await codeOf(m.client.post("/api/invitations/accept", { token }))).toEqual([404, "not_found", "replaced"]);
    expect((await m.client.post("/api/invitations/preview", { token })).body.invitation.state).toBe("replaced");
    expect((await o.client.post(`/api/team/invitations/${invitation.id}/resend`)).status).toBe(429);
    // Concurrent resends a minute later: one new link, the other told to wait.
    clock.advance(60_000);
    const both = await Promise.all([1, 2].map(() => o.client.post(`/api/team/invitations/${invitation.id}/resend`)));
    expect(both.map((r) => r.status).sort()).toEqual([200, 429]);
    const live = await server.ctx.storage.db
      .selectFrom("team_invitation_tokens")
      .select("token_hash")
      .where("invitation_id", "=", invitation.id)
      .where("replaced_at", "is", null)
      .execute();
    expect(live).toHaveLength(1);
    // Someone else's invitation, an unknown one: 404.
    const other = await owner();
    expect((await other.client.post(`/api/team/invitations/${invitation.id}/resend`)).status).toBe(404);
    expect((await other.client.delete(`/api/team/invitations/${invitation.id}`)).status).toBe(404);
  });

  it("cancel: state cancelled, out of the list, its link refused with 409; cancelling again 409", async () => {
    const o = await owner();
    const m = await person();
    const { invitation, token } = await invite(o.client, m.email);
    const r = await o.client.delete(`/api/team/invitations/${invitation.id}`);
    expect(r.status).toBe(200);
    expect(r.body.invitation.state).toBe("cancelled");
    expect((await o.client.get("/api/team")).body.invitations).toEqual([]);
    expect(await codeOf(m.client.post("/api/invitations/accept", { token }))).toEqual([409, "conflict", "cancelled"]);
    expect((await m.client.post("/api/invitations/preview", { token })).body.invitation).toMatchObject({ state: "cancelled", email: m.email });
    expect((await o.client.delete(`/api/team/invitations/${invitation.id}`)).status).toBe(409);
    clock.advance(61_000);
    expect((await o.client.post(`/api/team/invitations/${invitation.id}/resend`)).status).toBe(409);
    // The slot is free again, and the same address can be invited anew.
    expect((await o.client.post("/api/team/invitations", { email: m.email })).status).toBe(201);
  });

  it("preview tells the landing page who invited which address, signed out too", async () => {
    const o = await owner("business", "Olivia");
    const email = unique("landing");
    const { token } = await invite(o.client, email);
    const anon = await new ApiClient(server.url).init();
    const r = await anon.post("/api/invitations/preview", { token });
    expect(r.body).toEqual({
      status: "success",
      invitation: {
        email,
        inviter_name: "Olivia",
        inviter_email: o.email,
        state: "pending",
        expires_at: new Date(clock.now() + 7 * DAY).toISOString(),
        role: "member",
      },
    });
    expect((await anon.post("/api/invitations/preview", { token: "x".repeat(43) })).status).toBe(404);
  });

  it("two invitations racing for the last collaborator slot: exactly one succeeds", async () => {
    for (let round = 0; round < 3; round++) {
      const o = await owner();
      await invite(o.client, unique("first"));
      const results = await Promise.all([unique("a"), unique("b"), unique("c")].map((email) => o.client.post("/api/team/invitations", { email })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403]);
      expect((await o.client.get("/api/team")).body.invitations).toHaveLength(2);
    }
    // The same address twice at once: one invitation.
    const o = await owner();
    const email = unique("twice");
    const same = await Promise.all([1, 2].map(() => o.client.post("/api/team/invitations", { email })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("at most 20 invitation emails per owner and hour: inviting and cancelling in a loop cannot mail without bound", async () => {
    const o = await owner();
    const email = unique("looped");
    for (let i = 0; i < 20; i++) {
      const r = await o.client.post("/api/team/invitations", { email });
      expect(r.status, `invitation ${i + 1}`).toBe(201);
      expect((await o.client.delete(`/api/team/invitations/${r.body.invitation.id}`)).status).toBe(200);
      clock.advance(1_000);
    }
    const sent = mailTo(email).length;
    const refused = await o.client.post("/api/team/invitations", { email });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBe(3600 - 20);
    expect(mailTo(email)).toHaveLength(sent);
    expect((await o.client.get("/api/team")).body.invitations).toEqual([]);
    clock.advance(3600_000);
    expect((await o.client.post("/api/team/invitations", { email })).status).toBe(201);
  });

  it("lists kept apart: my members, my pending invitations, the teams I belong to", async () => {
    const a = await owner("business");
    const b = await owner("enterprise");
    // b is a member of a's team and has a member and an invitation of its own.
    const { token } = await invite(a.client, b.email);
    expect((await b.client.post("/api/invitations/accept", { token })).status).toBe(200);
    const bm = await memberOf(b);
    const pending = unique("pending");
    await invite(b.client, pending);
    const team = (await b.client.get("/api/team")).body;
    expect(team.members.map((m: { email: string }) => m.email)).toEqual([bm.email]);
    expect(team.invitations.map((i: { email: string }) => i.email)).toEqual([pending]);
    expect(team.memberships.map((m: { owner_email: string; active: boolean }) => [m.owner_email, m.active])).toEqual([[a.email, true]]);
    expect((await a.client.get("/api/team")).body.memberships).toEqual([]);
    expect((await new ApiClient(server.url).get("/api/team")).status).toBe(401);
  });
});

it("describes the team routes and ?owner= in the OpenAPI document", async () => {
  const server = await startTestServer();
  try {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { name: string; in: string }[]; tags?: string[] }>>;
    };
    for (const [path, method] of [
      ["/api/team", "get"],
      ["/api/team/invitations", "post"],
      ["/api/team/invitations/{id}/resend", "post"],
      ["/api/team/invitations/{id}", "delete"],
      ["/api/team/members/{user_id}", "delete"],
      ["/api/memberships/{owner_id}", "delete"],
      ["/api/invitations/accept", "post"],
      ["/api/invitations/preview", "post"],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(["team"]);
    }
    expect(doc.paths["/api/team/invitations"]!.post!.requestBody).toBeDefined();
    expect(doc.paths["/api/links"]!.get!.parameters!.some((p) => p.name === "owner" && p.in === "query")).toBe(true);
  } finally {
    await server.close();
  }
});

async function codeOf(p: Promise<{ status: number; body: { code?: string; reason?: string } }>): Promise<[number, string | undefined, string | undefined]> {
  const r = await p;
  return [r.status, r.body?.code, r.body?.reason];
}

describe.each(ENGINES)("invitation emails not confirmed on %s", (engine) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let refuse: string | null = "mailbox unavailable";
  const clock = new ManualClock();

  beforeAll(async () => {
    smtp = await startSmtpServer({ refuse: () => refuse });
    server = await startTestServer({ engine, clock, env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it("a refusing SMTP server: the invitation stays visible with send_confirmed false and can be resent after a minute", async () => {
    const o = await signedInClient(server, "refused-owner@example.com", "business");
    const r = await o.post("/api/team/invitations", { email: "refused@example.com" });
    expect(r.status).toBe(201);
    expect(r.body.invitation).toMatchObject({ state: "pending", send_confirmed: false });
    expect(smtp.messages).toHaveLength(0);
    expect((await o.get("/api/team")).body.invitations).toEqual([r.body.invitation]);
    expect((await o.post(`/api/team/invitations/${r.body.invitation.id}/resend`)).status).toBe(429);
    clock.advance(60_000);
    refuse = null;
    const again = await o.post(`/api/team/invitations/${r.body.invitation.id}/resend`);
    expect(again.status).toBe(200);
    expect(again.body.invitation.send_confirmed).toBe(true);
    expect(smtp.messages.map((m) => m.to)).toEqual([["refused@example.com"]]);
    expect((await o.get("/api/team")).body.invitations[0].send_confirmed).toBe(true);
  });

  it("an unreachable SMTP server: send_confirmed false, the invitation kept", async () => {
    const closed = await startSmtpServer();
    await closed.close();
    const down = await startTestServer({ engine, clock, env: { SMTP_URL: closed.url } });
    try {
      const o = await signedInClient(down, "down-owner@example.com", "business");
      const r = await o.post("/api/team/invitations", { email: "nobody@example.com" });
      expect(r.status).toBe(201);
      expect(r.body.invitation.send_confirmed).toBe(false);
      expect((await o.get("/api/team")).body.invitations).toMatchObject([{ email: "nobody@example.com", send_confirmed: false }]);
    } finally {
      await down.close();
    }
  });
});
