// A team member's API keys and the owner's links (issue 53): a key acts as its account, so a member's key reads
// and edits the owner's links by id while the membership lasts, never lists them, and loses them on the very
// next request once the owner removes the member or the member leaves (checked against the live membership,
// as sessions are); the owner's two-factor policy refuses it the owner's links (403 2fa_setup_required).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { createLink } from "../helpers/links.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import { type TestAccount, testAccount } from "../helpers/team.js";

describe.each(ENGINES)("a member's API keys and the owner's links on %s", (engine) => {
  let server: TestServer;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  async function withKey(secret: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** Invited, then accepting through the newest emailed link (a second invitation after a removal has its own). */
  async function join(owner: TestAccount, member: TestAccount): Promise<void> {
    expect((await owner.client.post("/api/team/invitations", { email: member.email })).status).toBe(201);
    const raw = readOutbox(server.outboxDir)
      .filter((m) => m.includes(`To: ${member.email}`))
      .at(-1);
    const accepted = await member.client.post("/api/invitations/accept", { token: tokenOf(linkIn(raw!, "/app/invitations/accept?token=")) });
    expect(accepted.status, accepted.text).toBe(200);
  }

  async function setUp(ownerPlan = "business") {
    const owner = await testAccount(server, `key-owner-${++n}@example.com`, ownerPlan);
    // Business: a plan with the external API, so the member's key is admitted at all.
    const member = await testAccount(server, `key-member-${n}@example.com`, "business");
    await join(owner, member);
    const link = await createLink(owner.client, { url: "https://example.com/owners" });
    const own = await createLink(member.client, { url: "https://example.com/members-own" });
    const r = await member.client.post("/api/keys", { name: "script", scopes: ["links:read", "links:write", "stats:read"] });
    expect(r.status, r.text).toBe(201);
    return { owner, member, link, own, key: r.body.secret as string };
  }

  /** What the member's key gets on the owner's link: read, statistics, edit, and whether the key's list shows it. */
  async function reach(key: string, linkId: string) {
    const list = await withKey(key, "GET", "/api/external/links?limit=100");
    return {
      listed: (list.body.links as Array<{ id: string }>).some((l) => l.id === linkId),
      get: (await withKey(key, "GET", `/api/external/links/${linkId}`)).status,
      stats: (await withKey(key, "GET", `/api/external/links/${linkId}/stats`)).status,
      patch: (await withKey(key, "PATCH", `/api/external/links/${linkId}`, { url: `https://example.com/by-key-${++n}` })).status,
    };
  }
  const MEMBER = { listed: false, get: 200, stats: 200, patch: 200 };
  const NONE = { listed: false, get: 404, stats: 404, patch: 404 };

  it("reaches the owner's links by id while a member (never deletes or lists them, no ?owner=), and loses them at once when removed", async () => {
    const { owner, member, link, own, key } = await setUp();
    expect(await reach(key, link.id)).toEqual(MEMBER);
    const edited = await withKey(key, "GET", `/api/external/links/${link.id}`);
    expect(edited.body.link.updated_by).toBe(member.id);
    expect((await withKey(key, "DELETE", `/api/external/links/${link.id}`)).body.code).toBe("forbidden");
    expect((await withKey(key, "GET", `/api/external/links?owner=${owner.id}`)).status).toBe(400);

    expect((await owner.client.delete(`/api/team/members/${member.id}`)).status).toBe(200);
    expect(await reach(key, link.id)).toEqual(NONE);
    expect((await withKey(key, "DELETE", `/api/external/links/${link.id}`)).status).toBe(404);
    // The key itself still works for the member's own links.
    expect((await withKey(key, "GET", `/api/external/links/${own.id}`)).status).toBe(200);

    // Invited again, the same key reaches the links again: nothing about the membership was kept with the key.
    await join(owner, member);
    expect(await reach(key, link.id)).toEqual(MEMBER);
  });

  it("loses the owner's links at once when the member leaves", async () => {
    const { owner, member, link, key } = await setUp();
    expect(await reach(key, link.id)).toEqual(MEMBER);
    expect((await member.client.delete(`/api/memberships/${owner.id}`)).status).toBe(200);
    expect(await reach(key, link.id)).toEqual(NONE);
  });

  it("is refused the owner's links with 2fa_setup_required under the owner's two-factor policy; its own links answer", async () => {
    const { owner, link, own, key } = await setUp("enterprise");
    expect((await owner.client.put("/api/team/policy", { require_2fa: true })).status).toBe(200);
    for (const [method, path] of [
      ["GET", `/api/external/links/${link.id}`],
      ["GET", `/api/external/links/${link.id}/stats`],
      ["PATCH", `/api/external/links/${link.id}`],
    ] as const) {
      const r = await withKey(key, method, path, method === "PATCH" ? { url: "https://example.com/refused" } : undefined);
      expect([r.status, r.body.code], `${method} ${path}`).toEqual([403, "2fa_setup_required"]);
    }
    expect((await withKey(key, "GET", `/api/external/links/${own.id}`)).status).toBe(200);
    const list = await withKey(key, "GET", "/api/external/links");
    expect([list.status, list.body.links.map((l: { id: string }) => l.id)]).toEqual([200, [own.id]]);
  });
});
