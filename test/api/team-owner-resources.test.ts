// A team's custom domains, webhooks and click streams, and links created in the owner's name (docs/roles.md), on
// both engines: an admin lists, creates, edits and deletes the owner's domain, webhook and stream with ?owner= and
// by id, under the OWNER's plan and limits (the admin itself is on Free); a member is refused 403 with its role and
// the action; a member creates links in the owner's account, counted against the owner's plan; a viewer cannot;
// a caller outside the team gets 404 as for any other account's things.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import type { TeamRole } from "../../src/contract/roles.js";
import { MAX_DOMAINS_PER_ACCOUNT } from "../../src/domains/domains.js";
import { MAX_WEBHOOKS } from "../../src/webhooks/webhooks.js";
import { planLimits } from "../../src/accounts/plans.js";

// Public address literals: no DNS lookup at creation, nothing connects (no internet here).
const HOOK = { name: "Team hook", url: "https://93.184.216.34/hook", kind: "custom" };
const STREAM = { name: "Team stream", kind: "redis", url: "redis://:pw@93.184.216.34:6379" };

describe.each(ENGINES)("a team's domains, webhooks, streams and links in the owner's name on %s", (engine) => {
  let server: TestServer;
  let owner: TestAccount;
  let outsider: TestAccount;
  const as = {} as Record<Exclude<TeamRole, "owner">, TestAccount>;
  let n = 0;

  beforeAll(async () => {
    // DNS goes to a closed local port: a domain's check answers "DNS not answering" at once, never the internet.
    server = await startTestServer({ engine, env: { DNS_SERVERS: "127.0.0.1:9" } });
    owner = await testAccount(server, `team-res-owner-${engine}@example.com`, "enterprise");
    outsider = await testAccount(server, `team-res-outsider-${engine}@example.com`, "enterprise");
    for (const role of ["admin", "member", "viewer"] as const) {
      // On Free themselves: whatever they do in the team runs on the owner's plan.
      as[role] = await testAccount(server, `team-res-${role}-${engine}@example.com`, "free");
      await server.ctx.storage.db
        .insertInto("team_members")
        .values({ owner_id: owner.id, member_id: as[role].id, joined_at: Date.now(), joined_by: "sso", role })
        .execute();
    }
  });
  afterAll(async () => server?.close());

  const db = () => server.ctx.storage.db;
  const q = () => `?owner=${owner.id}`;
  const refusal = (r: { status: number; body: Record<string, unknown> }) => [r.status, r.body.code, r.body.role, r.body.action];
  const code = (r: { status: number; body: Record<string, unknown> }) => [r.status, r.body.code];
  const linkCount = async (id: string) =>
    Number((await db().selectFrom("link_counts").select("links").where("owner_id", "=", id).executeTakeFirst())?.links ?? 0);

  it("an admin lists, adds, edits, verifies and deletes the owner's custom domains; a member only lists them; an outsider gets 404", async () => {
    const { admin, member, viewer } = as;
    expect((await admin.client.get(`/api/domains${q()}`)).body.domains).toEqual([]);
    // The admin's own Free plan has no custom domains: in the team the owner's Enterprise plan decides.
    expect(code(await admin.client.post("/api/domains", { hostname: `own-${engine}.example` }))).toEqual([403, "plan_required"]);

    const hostname = `team-${engine}.example`;
    const added = await admin.client.post(`/api/domains${q()}`, { hostname });
    expect(added.status, added.text).toBe(201);
    const id = added.body.domain.id as string;
    expect([added.body.domain.hostname, added.body.domain.status]).toEqual([hostname, "pending"]);
    expect((await db().selectFrom("domains").select("owner_id").where("id", "=", id).executeTakeFirst())?.owner_id).toBe(owner.id);
    expect((await owner.client.get("/api/domains")).body.domains.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await admin.client.get("/api/domains")).body.domains).toEqual([]);

    // Every role that sees the owner's links lists the domains (the link form picks from them).
    for (const who of [admin, member, viewer]) expect((await who.client.get(`/api/domains${q()}`)).body.domains.map((d: { id: string }) => d.id)).toEqual([id]);

    const edited = await admin.client.patch(`/api/domains/${id}`, { track_conversions: true });
    expect([edited.status, edited.body.domain.track_conversions]).toEqual([200, true]);
    const verified = await admin.client.post(`/api/domains/${id}/verify`);
    expect([verified.status, verified.body.domain.status]).toEqual([200, "pending"]);
    expect((await admin.client.get(`/api/domains/${id}/orphan-visits`)).status).toBe(200);

    // A member: 403 with its role and the action, nothing changed.
    expect(refusal(await member.client.post(`/api/domains${q()}`, { hostname: `member-${engine}.example` }))).toEqual([
      403,
      "forbidden",
      "member",
      "domains.manage",
    ]);
    expect(refusal(await member.client.patch(`/api/domains/${id}`, { track_conversions: false }))).toEqual([403, "forbidden", "member", "domains.manage"]);
    expect(refusal(await viewer.client.delete(`/api/domains/${id}`))).toEqual([403, "forbidden", "viewer", "domains.manage"]);
    expect(refusal(await member.client.post(`/api/domains/${id}/verify`))).toEqual([403, "forbidden", "member", "domains.manage"]);
    // Outside the team: as any other account's domain.
    expect(code(await outsider.client.get(`/api/domains${q()}`))).toEqual([404, "not_found"]);
    expect(code(await outsider.client.post(`/api/domains${q()}`, { hostname: `out-${engine}.example` }))).toEqual([404, "not_found"]);
    expect(code(await outsider.client.delete(`/api/domains/${id}`))).toEqual([404, "not_found"]);
    expect((await db().selectFrom("domains").select("track_conversions").where("id", "=", id).executeTakeFirst())?.track_conversions).toBe(1);

    // The owner's limit: the admin's answer is the owner's own.
    const now = Date.now();
    const filler = Array.from({ length: MAX_DOMAINS_PER_ACCOUNT - 1 }, (_, i) => ({
      id: `fill-${engine}-${i}`,
      owner_id: owner.id,
      hostname: `fill-${i}-${engine}.example`,
      status: "pending" as const,
      txt_token: `token${i}`,
      next_action: null,
      last_checked_at: null,
      verified_at: null,
      lost_at: null,
      next_check_at: null,
      verify_requested_at: null,
      created_at: now,
      track_conversions: null,
    }));
    await db().insertInto("domains").values(filler).execute();
    const full = await admin.client.post(`/api/domains${q()}`, { hostname: `over-${engine}.example` });
    const ownFull = await owner.client.post("/api/domains", { hostname: `over-${engine}.example` });
    expect([full.status, full.body]).toEqual([ownFull.status, ownFull.body]);
    expect([full.status, full.body.code, full.body.limit]).toEqual([403, "limit_reached", MAX_DOMAINS_PER_ACCOUNT]);
    await db()
      .deleteFrom("domains")
      .where(
        "id",
        "in",
        filler.map((f) => f.id),
      )
      .execute();

    expect((await admin.client.delete(`/api/domains/${id}`)).status).toBe(200);
    expect(await db().selectFrom("domains").select("id").where("id", "=", id).executeTakeFirst()).toBeUndefined();
    expect((await owner.client.get("/api/domains")).body.domains).toEqual([]);
  });

  it("an admin manages the owner's webhooks (secret, test, deliveries) under the owner's plan and limit; a member is refused", async () => {
    const { admin, member } = as;
    expect(code(await admin.client.get("/api/webhooks"))).toEqual([403, "plan_required"]);
    expect((await admin.client.get(`/api/webhooks${q()}`)).body.webhooks).toEqual([]);

    const made = await admin.client.post(`/api/webhooks${q()}`, HOOK);
    expect(made.status, made.text).toBe(201);
    const id = made.body.webhook.id as string;
    expect(made.body.secret).toMatch(/^whsec_/);
    expect((await db().selectFrom("webhooks").select("owner_id").where("id", "=", id).executeTakeFirst())?.owner_id).toBe(owner.id);
    expect((await owner.client.get("/api/webhooks")).body.webhooks.map((w: { name: string }) => w.name)).toEqual(["Team hook"]);

    const renamed = await admin.client.patch(`/api/webhooks/${id}`, { name: "Renamed", active: false });
    expect([renamed.status, renamed.body.webhook.name, renamed.body.webhook.active]).toEqual([200, "Renamed", false]);
    const rotated = await admin.client.post(`/api/webhooks/${id}/secret`);
    expect([rotated.status, rotated.body.secret === made.body.secret]).toEqual([200, false]);
    expect((await admin.client.post(`/api/webhooks/${id}/test`)).status).toBe(200);
    const deliveries = await admin.client.get(`/api/webhooks/${id}/deliveries`);
    expect([deliveries.status, deliveries.body.deliveries.length, deliveries.body.deliveries[0].test]).toEqual([200, 1, true]);

    for (const r of [
      await member.client.get(`/api/webhooks${q()}`),
      await member.client.post(`/api/webhooks${q()}`, HOOK),
      await member.client.patch(`/api/webhooks/${id}`, { name: "Member" }),
      await member.client.post(`/api/webhooks/${id}/secret`),
      await member.client.get(`/api/webhooks/${id}/deliveries`),
      await member.client.delete(`/api/webhooks/${id}`),
    ])
      expect(refusal(r)).toEqual([403, "forbidden", "member", "webhooks.manage"]);
    expect(code(await outsider.client.get(`/api/webhooks${q()}`))).toEqual([404, "not_found"]);
    expect(code(await outsider.client.patch(`/api/webhooks/${id}`, { name: "Outsider" }))).toEqual([404, "not_found"]);
    expect((await db().selectFrom("webhooks").select("name").where("id", "=", id).executeTakeFirst())?.name).toBe("Renamed");

    // The owner's five: the admin's answer is the owner's own.
    for (let i = 1; i < MAX_WEBHOOKS; i++) expect((await owner.client.post("/api/webhooks", { ...HOOK, name: `h${i}` })).status).toBe(201);
    const full = await admin.client.post(`/api/webhooks${q()}`, HOOK);
    expect([full.status, full.body]).toEqual([403, (await owner.client.post("/api/webhooks", HOOK)).body]);
    expect(full.body.code).toBe("limit_reached");

    expect((await admin.client.delete(`/api/webhooks/${id}`)).status).toBe(200);
    expect(await db().selectFrom("webhooks").select("id").where("id", "=", id).executeTakeFirst()).toBeUndefined();
    await db().deleteFrom("webhooks").where("owner_id", "=", owner.id).execute();
  });

  it("an admin manages the owner's click streams; a member is refused, an outsider gets 404", async () => {
    const { admin, member } = as;
    expect(code(await admin.client.get("/api/streams"))).toEqual([403, "plan_required"]);
    const made = await admin.client.post(`/api/streams${q()}`, STREAM);
    expect(made.status, made.text).toBe(201);
    const id = made.body.stream.id as string;
    expect([made.body.stream.name, made.body.stream.url]).toEqual(["Team stream", "redis://:***@93.184.216.34:6379"]);
    expect((await db().selectFrom("stream_sinks").select("owner_id").where("id", "=", id).executeTakeFirst())?.owner_id).toBe(owner.id);
    expect((await admin.client.get(`/api/streams${q()}`)).body.streams.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await owner.client.get("/api/streams")).body.streams.map((s: { id: string }) => s.id)).toEqual([id]);

    const edited = await admin.client.patch(`/api/streams/${id}`, { name: "Renamed", active: false });
    expect([edited.status, edited.body.stream.name, edited.body.stream.active]).toEqual([200, "Renamed", false]);
    for (const r of [
      await member.client.get(`/api/streams${q()}`),
      await member.client.post(`/api/streams${q()}`, STREAM),
      await member.client.patch(`/api/streams/${id}`, { name: "Member" }),
      await member.client.delete(`/api/streams/${id}`),
    ])
      expect(refusal(r)).toEqual([403, "forbidden", "member", "webhooks.manage"]);
    expect(code(await outsider.client.get(`/api/streams${q()}`))).toEqual([404, "not_found"]);
    expect(code(await outsider.client.delete(`/api/streams/${id}`))).toEqual([404, "not_found"]);

    expect((await admin.client.delete(`/api/streams/${id}`)).status).toBe(200);
    expect((await owner.client.get("/api/streams")).body.streams).toEqual([]);
  });

  it("a member creates links in the owner's account, counted against the owner's plan; a viewer cannot; an outsider gets 404", async () => {
    const { member, viewer } = as;
    const [ownerBefore, memberBefore] = [await linkCount(owner.id), await linkCount(member.id)];
    const alias = `team-made-${engine}-${++n}`;

    const refused = await viewer.client.post(`/api/links${q()}`, { url: "https://example.com/viewer", alias: `viewer-${engine}` });
    expect(refusal(refused)).toEqual([403, "forbidden", "viewer", "links.create"]);
    expect(code(await outsider.client.post(`/api/links${q()}`, { url: "https://example.com/outsider" }))).toEqual([404, "not_found"]);
    const anon = await new ApiClient(server.url).init();
    expect(code(await anon.post(`/api/links${q()}`, { url: "https://example.com/anon" }))).toEqual([401, "unauthenticated"]);

    // An option of the owner's Enterprise plan the member's own Free plan lacks: expiry.
    const made = await member.client.post(`/api/links${q()}`, { url: "https://example.com/team", alias, expires_at: "2099-01-01T00:00:00.000Z" });
    expect(made.status, made.text).toBe(201);
    expect([made.body.link.owner_id, made.body.link.updated_by, made.body.link.alias]).toEqual([owner.id, member.id, alias]);
    expect([await linkCount(owner.id), await linkCount(member.id)]).toEqual([ownerBefore + 1, memberBefore]);
    const listed = await owner.client.get(`/api/links?q=${alias}`);
    expect(listed.body.links.map((l: { alias: string; updated_by_email: string }) => [l.alias, l.updated_by_email])).toEqual([[alias, member.email]]);
    expect((await member.client.get(`/api/links${q()}&q=${alias}`)).body.total).toBe(1);
    expect((await member.client.get(`/api/links?q=${alias}`)).body.total).toBe(0);

    // Bulk creation (Business and up) on the owner's plan.
    expect(code(await member.client.post("/api/links/bulk", { urls: "https://example.com/own-bulk" }))).toEqual([403, "plan_required"]);
    const bulk = await member.client.post(`/api/links/bulk${q()}`, { urls: "https://example.com/b1\nhttps://example.com/b2" });
    expect([bulk.status, bulk.body.results.map((r: { status: string; link: { owner_id: string } }) => [r.status, r.link.owner_id])]).toEqual([
      200,
      [
        ["created", owner.id],
        ["created", owner.id],
      ],
    ]);
    expect(refusal(await viewer.client.post(`/api/links/bulk${q()}`, { urls: "https://example.com/v" }))).toEqual([403, "forbidden", "viewer", "links.create"]);
    expect(await linkCount(owner.id)).toBe(ownerBefore + 3);

    // The owner's link quota: full, the member gets the owner's own answer.
    const { maxLinks } = planLimits("enterprise");
    const held = await linkCount(owner.id);
    await db().updateTable("link_counts").set({ links: maxLinks }).where("owner_id", "=", owner.id).execute();
    const full = await member.client.post(`/api/links${q()}`, { url: "https://example.com/over" });
    expect([full.status, full.body]).toEqual([403, (await owner.client.post("/api/links", { url: "https://example.com/over" })).body]);
    expect([full.body.code, full.body.limit]).toEqual(["limit_reached", maxLinks]);
    await db().updateTable("link_counts").set({ links: held }).where("owner_id", "=", owner.id).execute();
  });
});
