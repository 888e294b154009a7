// Shared-link permissions: what a member may do with the owner's links, and that access ends (or is
// suspended and comes back) on removal, leaving, the owner's suspension and downgrade; strangers see nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";

describe.each(ENGINES)("shared links on %s", (engine) => {
  let server: TestServer;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  async function account(plan: string) {
    const email = `acc-${++n}@example.com`;
    const client = await signedInClient(server, email, plan);
    return { client, email, id: (await client.get("/api/profile")).body.user.id as string };
  }

  /** An owner (Business), a member (free) who joined through the emailed link, and one link of the owner's. */
  async function team() {
    const owner = await account("business");
    const member = await account("free");
    const r = await owner.client.post("/api/team/invitations", { email: member.email });
    expect(r.status).toBe(201);
    // No SMTP_URL: the email is in the outbox, and the test follows its link.
    const raw = readOutbox(server.outboxDir).find((m) => m.includes(`To: ${member.email}`));
    const token = tokenOf(linkIn(raw!, "/app/invitations/accept?token="));
    expect((await member.client.post("/api/invitations/accept", { token })).status).toBe(200);
    const link = (await owner.client.post("/api/links", { url: "https://example.com/shared", max_clicks: 50 })).body.link;
    return { owner, member, link };
  }

  /** The status of every owner-link route for a client (PATCH and DELETE last: they change things). */
  async function statuses(c: ApiClient, ownerId: string, linkId: string) {
    return {
      list: (await c.get(`/api/links?owner=${ownerId}`)).status,
      get: (await c.get(`/api/links/${linkId}`)).status,
      stats: (await c.get(`/api/links/${linkId}/stats`)).status,
      csv: (await c.get(`/api/links/${linkId}/stats.csv`)).status,
      patch: (await c.patch(`/api/links/${linkId}`, { url: "https://example.com/patched" })).status,
      delete: (await c.delete(`/api/links/${linkId}`)).status,
    };
  }
  const MEMBER = { list: 200, get: 200, stats: 200, csv: 200, patch: 200, delete: 403 };
  const NONE = { list: 404, get: 404, stats: 404, csv: 404, patch: 404, delete: 404 };

  it("a member lists, reads, edits (destination and limits, with the owner's plan) and sees statistics; cannot delete", async () => {
    const { owner, member, link } = await team();
    const list = await member.client.get(`/api/links?owner=${owner.id}`);
    expect(list.body.links.map((l: { id: string }) => l.id)).toEqual([link.id]);
    // The member's own list stays their own.
    expect((await member.client.get("/api/links")).body.links).toEqual([]);

    // The member is on the free plan; the owner's Business plan allows limits and expiry on its links.
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const r = await member.client.patch(`/api/links/${link.id}`, { url: "https://example.com/edited", max_clicks: 7, expires_at: expires });
    expect(r.status).toBe(200);
    expect(r.body.link).toMatchObject({
      url: "https://example.com/edited",
      max_clicks: 7,
      expires_at: expires,
      owner_id: owner.id,
      updated_by: member.id,
      updated_by_email: member.email,
    });
    expect((await fetch(`${server.url}/${link.alias}`, { redirect: "manual" })).headers.get("location")).toBe("https://example.com/edited");
    // The member's own links still follow the member's own plan.
    const own = (await member.client.post("/api/links", { url: "https://example.com/mine" })).body.link;
    expect((await member.client.patch(`/api/links/${own.id}`, { max_clicks: 3 })).body.code).toBe("plan_required");

    const stats = await member.client.get(`/api/links/${link.id}/stats`);
    expect(stats.body).toMatchObject({ link_id: link.id, advanced: true });
    const csv = await member.client.get(`/api/links/${link.id}/stats.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);

    const del = await member.client.delete(`/api/links/${link.id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe("forbidden");
    expect((await owner.client.get(`/api/links/${link.id}`)).body.link).toMatchObject({ updated_by: member.id, updated_by_email: member.email });
    // The owner edits next: updated_by names the owner.
    expect((await owner.client.patch(`/api/links/${link.id}`, { url: "https://example.com/owner" })).body.link.updated_by).toBe(owner.id);
    // Still the owner's link; the owner alone deletes it.
    expect((await owner.client.delete(`/api/links/${link.id}`)).status).toBe(200);
  });

  it("a third account never sees anything (404 everywhere, ?owner= too), and the member's access is limited to the owner who invited", async () => {
    const { owner, member, link } = await team();
    const stranger = await account("enterprise");
    expect(await statuses(stranger.client, owner.id, link.id)).toEqual(NONE);
    expect((await stranger.client.get(`/api/links?owner=${member.id}`)).status).toBe(404);
    // The owner's membership grants nothing on the member's links.
    const own = (await member.client.post("/api/links", { url: "https://example.com/member" })).body.link;
    expect((await owner.client.get(`/api/links/${own.id}`)).status).toBe(404);
    expect((await owner.client.get(`/api/links?owner=${member.id}`)).status).toBe(404);
    expect((await new ApiClient(server.url).get(`/api/links?owner=${owner.id}`)).status).toBe(401);
    expect((await member.client.get(`/api/links?owner=${"x".repeat(65)}`)).status).toBe(400);
  });

  it("removal by the owner ends access at once", async () => {
    const { owner, member, link } = await team();
    expect((await member.client.get(`/api/links/${link.id}`)).status).toBe(200);
    expect((await owner.client.delete(`/api/team/members/${member.id}`)).status).toBe(200);
    expect(await statuses(member.client, owner.id, link.id)).toEqual(NONE);
    expect((await member.client.get("/api/team")).body.memberships).toEqual([]);
    expect((await owner.client.delete(`/api/team/members/${member.id}`)).status).toBe(404);
  });

  it("leaving (from a free account) ends access at once", async () => {
    const { owner, member, link } = await team();
    expect((await member.client.delete(`/api/memberships/${owner.id}`)).status).toBe(200);
    expect(await statuses(member.client, owner.id, link.id)).toEqual(NONE);
    expect((await member.client.delete(`/api/memberships/${owner.id}`)).status).toBe(404);
    expect((await owner.client.get("/api/team")).body.members).toEqual([]);
  });

  it("the owner's suspension suspends access (active: false), reactivation brings it back", async () => {
    const { owner, member, link } = await team();
    await server.ctx.accounts.setStatus(owner.email, "suspended");
    expect(await statuses(member.client, owner.id, link.id)).toEqual(NONE);
    expect((await member.client.get("/api/team")).body.memberships).toMatchObject([{ owner_id: owner.id, active: false }]);
    await server.ctx.accounts.setStatus(owner.email, "active");
    expect((await member.client.get("/api/team")).body.memberships).toMatchObject([{ owner_id: owner.id, active: true }]);
    expect(await statuses(member.client, owner.id, link.id)).toEqual(MEMBER);
  });

  it("the owner's downgrade suspends access, the upgrade brings it back; the membership is kept meanwhile", async () => {
    const { owner, member, link } = await team();
    for (const plan of ["pro", "free"]) {
      await server.ctx.accounts.setPlan(owner.email, plan);
      expect(await statuses(member.client, owner.id, link.id)).toEqual(NONE);
      expect((await member.client.get("/api/team")).body.memberships).toMatchObject([{ owner_id: owner.id, active: false }]);
      expect((await owner.client.get("/api/team")).body.members).toMatchObject([{ user_id: member.id }]);
    }
    // Cancelling the subscription is a downgrade too.
    await server.ctx.accounts.setPlan(owner.email, "enterprise");
    expect(await statuses(member.client, owner.id, link.id)).toEqual(MEMBER);
    expect((await owner.client.post("/api/subscription/cancel")).status).toBe(200);
    expect((await member.client.get(`/api/links/${link.id}`)).status).toBe(404);
  });

  it("a suspended member cannot edit the owner's links (account_inactive) but can still leave", async () => {
    const { owner, member, link } = await team();
    await server.ctx.accounts.setStatus(member.email, "suspended");
    expect((await member.client.patch(`/api/links/${link.id}`, { url: "https://example.com/x" })).body.code).toBe("account_inactive");
    expect((await member.client.delete(`/api/memberships/${owner.id}`)).status).toBe(200);
  });

  it("the link's short address and QR code stay public and unchanged for everyone (no management through them)", async () => {
    const { link } = await team();
    const qr = await fetch(`${server.url}/api/qr/${link.alias}`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
  });
});
