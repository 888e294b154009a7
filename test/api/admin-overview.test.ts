// The operator console's overview (docs/operator.md, Overview) on both engines: account and link counts,
// this week's clicks and top links from the daily roll-up (UTC days), open reports, the blocklist's two
// sources, and the health of this instance's click writer and webhook queue.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createLink, linkNum } from "../helpers/links.js";
import { type Account, account, operator } from "../helpers/operator.js";
import { ManualClock } from "../../src/shared/clock.js";
import { ClickDeliveries } from "../../src/webhooks/click-deliveries.js";
import { CountryResolver } from "../../src/clicks/describe.js";

const DAY = 86_400_000;

describe.each(ENGINES)("operator console: overview on %s", (engine) => {
  let server: TestServer;
  let ops: Account;
  // Noon UTC: "today" and the week are the same UTC days whatever the test machine's zone.
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0));

  beforeAll(async () => {
    // Clicks wait in the buffer until flushed by the test (the click writer's health is read meanwhile).
    server = await startTestServer({ engine, clock, env: { CLICK_FLUSH_MS: "60000", CLICK_ROLLUP_MS: "600000" } });
    ops = await operator(server, "ops-overview@example.com", "enterprise");
  });
  afterAll(async () => server?.close());

  it("counts accounts, links, this week's clicks and top links, open reports and the blocklist", async () => {
    const a = await account(server, "ov-a@example.com", { plan: "pro" });
    const b = await account(server, "ov-b@example.com", { plan: "business" });
    await account(server, "ov-c@example.com", { plan: "business" });
    await server.ctx.accounts.setStatus("ov-c@example.com", "suspended");
    const hot = await createLink(a.client, { url: "https://example.com/hot", alias: "ov-hot" });
    const warm = await createLink(b.client, { url: "https://example.com/warm", alias: "ov-warm" });
    const old = await createLink(b.client, { url: "https://example.com/old", alias: "ov-old" });
    await createLink(b.client, { url: "https://example.com/cold", alias: "ov-cold" });
    expect((await ops.client.post(`/api/admin/links/${old.id}/disable`, { reason: "x" })).status).toBe(200);

    // Today: 3 clicks on hot, 1 on warm, through the redirect; earlier days written into the roll-up directly.
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/ov-hot`, { redirect: "manual" })).status).toBe(302);
    expect((await fetch(`${server.url}/ov-warm`, { redirect: "manual" })).status).toBe(302);
    await server.ctx.clicks.flush();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await server.ctx.storage.db
      .insertInto("click_daily")
      .values([
        { link_id: warm.id, day: day(clock.now() - 6 * DAY), clicks: 5, bots: 0 },
        // Outside the week (seven days ago) and in the future: not counted.
        { link_id: hot.id, day: day(clock.now() - 7 * DAY), clicks: 100, bots: 0 },
        { link_id: hot.id, day: day(clock.now() + DAY), clicks: 100, bots: 0 },
        // A week-old click of a link now disabled still counts.
        { link_id: old.id, day: day(clock.now() - 2 * DAY), clicks: 2, bots: 0 },
      ])
      .execute();

    const report = (id: string, state: string) => ({
      id,
      link_id: hot.id,
      domain: "",
      alias: "ov-hot",
      url: "https://example.com/hot",
      reason: "spam",
      details: "",
      reporter_email: null,
      state,
      created_at: clock.now(),
      resolved_at: null,
      resolved_by: null,
    });
    await server.ctx.storage.db
      .insertInto("abuse_reports")
      .values([report("r1", "open"), report("r2", "open"), report("r3", "dismissed")])
      .execute();
    server.ctx.blocklist.setConsoleHosts(["one.example", "two.example"]);
    server.ctx.blocklist.setFileHosts(["three.example"]);

    try {
      const r = await ops.client.get("/api/admin/overview");
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get("cache-control")).toBe("no-store");
      expect(r.body).toEqual({
        status: "success",
        accounts: { total: 4, active: 3, suspended: 1, by_plan: { free: 0, pro: 1, business: 2, enterprise: 1 } },
        links: { total: 4, disabled: 1 },
        clicks: { today: 4, week: 11 },
        top_links: [
          { id: warm.id, alias: "ov-warm", domain: null, short_url: `${server.url}/ov-warm`, url: "https://example.com/warm", owner_email: b.email, clicks: 6 },
          { id: hot.id, alias: "ov-hot", domain: null, short_url: `${server.url}/ov-hot`, url: "https://example.com/hot", owner_email: a.email, clicks: 3 },
          { id: old.id, alias: "ov-old", domain: null, short_url: `${server.url}/ov-old`, url: "https://example.com/old", owner_email: b.email, clicks: 2 },
        ],
        reports_open: 2,
        health: {
          database: "ok",
          click_writer: { pending: 0, oldest_ms: 0, journal_only: 0, journal_bytes: 0, dropped: 0 },
          webhook_queue: { queued: 0, dropped: 0 },
        },
        blocklist: { console: 2, file: 1 },
        // Test servers check no destination unless a test turns LINK_CHECKS on (test/api/link-health-views.test.ts does).
        link_checks: { checks_enabled: false, due: 0, links_broken: 0, destinations_broken: 0, destinations_failing: 0 },
      });
    } finally {
      server.ctx.blocklist.setConsoleHosts([]);
      server.ctx.blocklist.setFileHosts([]);
    }
  });

  it("shows the click writer's backlog: pending clicks and the age of the oldest", async () => {
    const owner = await account(server, "ov-writer@example.com");
    const link = await createLink(owner.client, { url: "https://example.com/w" });
    const num = await linkNum(server, link.id);
    const click = (at: number) => ({
      linkId: link.id,
      linkNum: num,
      at,
      userAgent: "test",
      referer: "",
      ip: "",
      country: null,
      counted: false,
      destination: null,
    });
    server.ctx.clicks.record(click(clock.now() - 5_000));
    server.ctx.clicks.record(click(clock.now() - 1_000));
    const r = await ops.client.get("/api/admin/overview");
    // One journal append of both: a 12-byte header, the strings ["test",""] (11 bytes), 12 numbers of 8 bytes a click
    // (the 11th and 12th: the click id's and the store visit's strings, none here: CLK5, src/clicks/journal-segment.ts).
    expect(r.body.health.click_writer).toEqual({ pending: 2, oldest_ms: 5_000, journal_only: 0, journal_bytes: 215, dropped: 0 });
    await server.ctx.clicks.flush();
    expect((await ops.client.get("/api/admin/overview")).body.health.click_writer).toEqual({
      pending: 0,
      oldest_ms: 0,
      journal_only: 0,
      journal_bytes: 0,
      dropped: 0,
    });
  });

  it("answers a non-operator 403 and a signed-out client 401", async () => {
    const user = await account(server, "ov-user@example.com");
    const r = await user.client.get("/api/admin/overview");
    expect([r.status, r.body.code]).toEqual([403, "forbidden"]);
    const anon = await fetch(`${server.url}/api/admin/overview`, { headers: { accept: "application/json" } });
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { code: string }).code).toBe("unauthenticated");
    const extra = await ops.client.get("/api/admin/overview?x=1");
    expect([extra.status, extra.body.code]).toEqual([400, "invalid_request"]);
  });
});

describe("webhook queue state (what the overview shows as health.webhook_queue)", () => {
  it("counts events waiting or in flight, and events dropped since start", async () => {
    const target = { id: "w1", url: "https://93.184.216.34/hook", kind: "custom" } as never;
    const drops: string[] = [];
    const deliveries = new ClickDeliveries({
      directory: { owners: new Map([["owner", [target]]]) } as never,
      sender: { send: () => new Promise(() => undefined) } as never,
      deliveryLog: { dropped: (id: string) => drops.push(id), add: () => undefined } as never,
      countries: new CountryResolver(null),
      origin: "http://127.0.0.1",
      now: () => Date.now(),
      log: pino({ level: "silent" }),
      // One event may wait; none is sent (no sending slot): the second is dropped.
      limits: { queue: 1, concurrency: 0 },
    });
    expect(deliveries.queueState()).toEqual({ queued: 0, dropped: 0 });
    const visit = { alias: "a", userAgent: "", referer: "", ip: "", country: null, qr: false };
    deliveries.linkClicked("owner", { id: "l1", url: "https://example.com/" }, "", visit, Date.now(), "default");
    deliveries.linkClicked("owner", { id: "l1", url: "https://example.com/" }, "", visit, Date.now(), "default");
    deliveries.linkClicked("nobody", { id: "l2", url: "https://example.com/" }, "", visit, Date.now(), "default");
    expect(deliveries.queueState()).toEqual({ queued: 1, dropped: 1 });
    expect(drops).toEqual(["w1"]);
  });
});
