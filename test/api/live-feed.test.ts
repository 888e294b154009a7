// The live feed over a real port (docs/api.md, Live feed): clicks within a second with their exact fields
// and nothing of the visitor's address or user agent, the backlog, owners and members, the QR marker, the
// plan gate, the stream caps, the rate cap's `skipped`, the heartbeat, lost access and a prompt shutdown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { joinTeam, testAccount, type TestAccount } from "../helpers/team.js";
import { openSse, type SseStream } from "../helpers/sse.js";
import { UA, visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";

const LIVE = "/api/analytics/live";
const VISITOR_IP = "203.0.113.77";
const visitor = (extra: Record<string, string> = {}) => ({
  "user-agent": UA.iphone,
  referer: "https://news.example.org/a?b=1",
  "cf-ipcountry": "FR",
  "x-forwarded-for": VISITOR_IP,
  ...extra,
});

describe.each(ENGINES)("live feed on %s", (engine) => {
  let server: TestServer;
  let host: string;
  let owner: TestAccount;
  const open: SseStream[] = [];
  const sse = async (who: TestAccount | ApiClient | null, query = "") => {
    const cookie = who === null ? null : "client" in who ? who.client.cookie : who.cookie;
    const s = await openSse(server.url, LIVE + query, cookie);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { TRUST_PROXY: "true" }, live: { perSecond: 5, heartbeatMs: 400, recheckMs: 300 } });
    host = new URL(server.url).host;
    owner = await testAccount(server, "live-owner@example.com", "business");
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await server?.close();
  });

  it("streams a click within a second with exactly its fields, and never the visitor's address or user agent", async () => {
    const link = await createLink(owner.client, { url: "https://example.com/live", alias: "live-one" });
    const s = await sse(owner);
    expect(s.status).toBe(200);
    expect(s.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(s.headers["cache-control"]).toBe("no-store");
    await waitFor(() => s.raw().includes("retry: 3000"), { what: "the stream's start" });
    const before = Date.now();
    expect(await visit(server.url, "/live-one", visitor())).toBe(302);
    const [click] = await s.next("click", 1, 1_000);
    expect(click!.at - before).toBeLessThan(1_000);
    const at = Date.parse(click!.data.at);
    expect(at).toBeGreaterThanOrEqual(before - 5);
    expect(at).toBeLessThanOrEqual(click!.at);
    expect(click!.data).toEqual({
      at: click!.data.at,
      link_id: link.id,
      alias: "live-one",
      domain: host,
      country: "FR",
      device: "mobile",
      browser: "Mobile Safari",
      os: "iOS",
      referrer: "news.example.org",
      source: "link",
      destination: "default",
      bot: false,
    });
    expect(s.raw()).not.toContain(VISITOR_IP);
    expect(s.raw()).not.toContain("iPhone OS");
    expect(s.raw()).not.toContain("Mozilla");
  });

  it("sends the latest 20 stored clicks first, oldest first, QR scans marked, unknown country and referrer empty", async () => {
    const biz = await testAccount(server, "live-backlog@example.com", "business");
    await createLink(biz.client, { url: "https://example.com/a", alias: "live-back-a" });
    await createLink(biz.client, { url: "https://example.com/b", alias: "live-back-b" });
    for (let i = 1; i <= 23; i++) {
      const headers: Record<string, string> = { "user-agent": UA.windows, referer: `https://ref-${i}.example/` };
      expect(await visit(server.url, i % 2 ? "/live-back-a" : "/live-back-b", headers)).toBe(302);
      // Each click a millisecond of its own: clicks of the same millisecond have no order to assert.
      await new Promise((r) => setTimeout(r, 3));
    }
    expect(await visit(server.url, "/live-back-a?qr=1", { "user-agent": UA.googlebot })).toBe(302);
    await server.ctx.clicks.flush();
    const s = await sse(biz);
    const backlog = await s.next("click", 20);
    // Nothing more comes from the backlog: it is sent whole before any live click, so a click made now
    // is the next event (instead of watching a quiet window).
    expect(await visit(server.url, "/live-back-b", { "user-agent": UA.windows, referer: "https://after-backlog.example/" })).toBe(302);
    const next = (await s.next("click", 21)).slice(20);
    expect(next.map((e) => e.data.referrer)).toEqual(["after-backlog.example"]);
    expect(backlog.map((e) => e.data.referrer)).toEqual([...Array.from({ length: 19 }, (_, i) => `ref-${i + 5}.example`), ""]);
    expect(backlog.map((e) => e.data.alias).slice(0, 2)).toEqual(["live-back-a", "live-back-b"]);
    expect(backlog[19]!.data).toMatchObject({
      alias: "live-back-a",
      country: "",
      device: "bot",
      bot: true,
      referrer: "",
      source: "qr",
      destination: "default",
    });
    expect(backlog.slice(0, 19).every((e) => e.data.source === "link")).toBe(true);
    const times = backlog.map((e) => Date.parse(e.data.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("shows an owner's clicks to that owner only, and to an active member with ?owner=", async () => {
    const other = await testAccount(server, "live-other@example.com", "business");
    const member = await testAccount(server, "live-member@example.com", "free");
    await joinTeam(server, owner, member);
    await createLink(other.client, { url: "https://example.com/other", alias: "live-other" });
    await createLink(owner.client, { url: "https://example.com/mine", alias: "live-mine" });
    const mine = await sse(owner);
    const asMember = await sse(member, `?owner=${owner.id}`);
    const theirs = await sse(other);
    // Only the owner's own account for the member without ?owner=: a free plan has no live feed.
    const memberOwn = await sse(member);
    expect(memberOwn.status).toBe(403);
    expect((await sse(other, `?owner=${owner.id}`)).status).toBe(404);
    await waitFor(() => mine.raw().includes("retry:") && asMember.raw().includes("retry:") && theirs.raw().includes("retry:"));
    const skip = (s: SseStream) => s.events.filter((e) => e.event === "click").length;
    const [m0, a0, t0] = [skip(mine), skip(asMember), skip(theirs)];
    expect(await visit(server.url, "/live-other", visitor({ referer: "https://other.example/" }))).toBe(302);
    expect(await visit(server.url, "/live-mine", visitor({ referer: "https://mine.example/" }))).toBe(302);
    await theirs.next("click", t0 + 1, 1_000);
    await mine.next("click", m0 + 1, 1_000);
    await asMember.next("click", a0 + 1, 1_000);
    // A second click on each link: a click of the other owner's, had it been sent, would have come
    // before it (instead of watching a quiet window).
    expect(await visit(server.url, "/live-other", visitor())).toBe(302);
    expect(await visit(server.url, "/live-mine", visitor())).toBe(302);
    await theirs.next("click", t0 + 2, 1_000);
    await mine.next("click", m0 + 2, 1_000);
    await asMember.next("click", a0 + 2, 1_000);
    expect(mine.events.slice(m0).map((e) => e.data.alias)).toEqual(["live-mine", "live-mine"]);
    expect(asMember.events.slice(a0).map((e) => e.data.alias)).toEqual(["live-mine", "live-mine"]);
    expect(theirs.events.slice(t0).map((e) => e.data.alias)).toEqual(["live-other", "live-other"]);
    expect(mine.raw()).not.toContain("live-other");
    expect(asMember.raw()).not.toContain("live-other");
  });

  it("marks a visit through the QR code (?qr=1) as source qr", async () => {
    await createLink(owner.client, { url: "https://example.com/qr", alias: "live-qr" });
    const s = await sse(owner);
    await waitFor(() => s.raw().includes("retry:"));
    const n = s.events.length;
    expect(await visit(server.url, "/live-qr?qr=1", visitor())).toBe(302);
    await waitFor(() => s.events.slice(n).find((e) => e.data.alias === "live-qr"), { timeoutMs: 1_000 });
    expect(s.events.slice(n).map((e) => [e.data.alias, e.data.source])).toEqual([["live-qr", "qr"]]);
  });

  it("is for Business and above (403 plan_required), signed in (401), and refuses a sixth stream (429)", async () => {
    const pro = await testAccount(server, "live-pro@example.com", "pro");
    const gated = await sse(pro);
    expect(gated.status).toBe(403);
    expect(gated.body).toMatchObject({ status: "error", code: "plan_required", required_plan: "business" });
    const anon = await sse(await new ApiClient(server.url).init());
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ status: "error", code: "unauthenticated" });
    expect((await sse(owner, "?unknown=1")).status).toBe(400);

    const many = await testAccount(server, "live-many@example.com", "enterprise");
    const five = await Promise.all([1, 2, 3, 4, 5].map(() => sse(many)));
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await sse(many);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ status: "error", code: "rate_limited" });
    expect(sixth.headers["retry-after"]).toBe("5");
    // Another account is not affected; a closed stream frees its slot.
    expect((await sse(owner)).status).toBe(200);
    five[0]!.close();
    await waitFor(async () => (await sse(many)).status === 200, { what: "a slot freed by a closed stream" });
  });

  it("sends at most 5 clicks a second per stream here, then `skipped` with the count", async () => {
    const hot = await testAccount(server, "live-hot@example.com", "business");
    await createLink(hot.client, { url: "https://example.com/hot", alias: "live-hot" });
    const s = await sse(hot);
    await waitFor(() => s.raw().includes("retry:"));
    await Promise.all(Array.from({ length: 40 }, () => visit(server.url, "/live-hot", visitor())));
    const skipped = await s.next("skipped", 1, 3_000);
    // Until every one of the 40 is accounted for, as a click or in a skipped count (the last second's
    // count comes a second later).
    const clickEvents = () => s.events.filter((e) => e.event === "click");
    const skippedTotal = () => s.events.filter((e) => e.event === "skipped").reduce((n, e) => n + e.data.count, 0);
    await waitFor(() => clickEvents().length + skippedTotal() >= 40, { timeoutMs: 5_000, what: "40 clicks sent or counted as skipped" });
    const clicks = clickEvents();
    expect(skipped[0]!.data.count).toBeGreaterThan(0);
    expect(clicks.length + skippedTotal()).toBe(40);
    // Per second of arrival, never more than 5 click events.
    const perSecond = new Map<number, number>();
    for (const c of clicks) perSecond.set(Math.floor((c.at - clicks[0]!.at) / 1000), (perSecond.get(Math.floor((c.at - clicks[0]!.at) / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
  });

  it("writes a keep-alive comment when idle, and ends a member's stream once the membership is gone", async () => {
    const boss = await testAccount(server, "live-boss@example.com", "business");
    const staff = await testAccount(server, "live-staff@example.com", "free");
    await joinTeam(server, boss, staff);
    const s = await sse(staff, `?owner=${boss.id}`);
    await waitFor(() => s.comments.includes(": keep-alive"), { timeoutMs: 2_000, what: "a keep-alive comment" });
    expect((await boss.client.delete(`/api/team/members/${staff.id}`)).status).toBe(200);
    await waitFor(() => s.ended(), { timeoutMs: 2_000, what: "the stream's end" });
  });

  it("ends a member's stream once the owner requires two-factor sign-in the member has not set up", async () => {
    const boss = await testAccount(server, "live-policy-boss@example.com", "enterprise");
    const staff = await testAccount(server, "live-policy-staff@example.com", "free");
    await joinTeam(server, boss, staff);
    const s = await sse(staff, `?owner=${boss.id}`);
    await waitFor(() => s.raw().includes("retry: 3000"), { what: "the stream's start" });
    expect((await boss.client.put("/api/team/policy", { require_2fa: true })).status).toBe(200);
    await waitFor(() => s.ended(), { timeoutMs: 2_000, what: "the stream's end" });
    const again = await sse(staff, `?owner=${boss.id}`);
    expect([again.status, again.body?.code]).toEqual([403, "2fa_setup_required"]);
  });
});

describe.each(ENGINES)("live feed at shutdown on %s", (engine) => {
  it("a graceful stop with open streams finishes promptly and ends them", async () => {
    const server = await startTestServer({ engine });
    const owner = await testAccount(server, "live-stop@example.com", "business");
    const streams = await Promise.all([1, 2].map(() => openSse(server.url, LIVE, owner.client.cookie)));
    await waitFor(() => streams.every((s) => s.raw().includes("retry:")));
    expect(server.ctx.live.openStreams).toBe(2);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await waitFor(() => streams.every((s) => s.ended()), { timeoutMs: 1_000, what: "the streams' end" });
  });
});
