// Link health over real HTTP on both engines (docs/health.md): destinations on loopback that answer 200, 404,
// 500, a redirect loop, nothing (a short timeout), an expired certificate and 429, each classified exactly; three
// failures make a destination broken and one success recovers it, with one digest email a day (a real SMTP
// server on loopback) and the events on a webhook that opted in; 1,000 links to one host never have more than
// LINK_CHECK_HOST_CONCURRENCY requests in flight there. A ManualClock moves time between checks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startSmtpServer } from "../helpers/mail.js";
import { type Receiver, type TestCa, type TestDns, makeTestCa, startDns, startReceiver } from "../helpers/webhook-receivers.js";
import { type Destinations, expiredCertificate, startDestinations, startHttps } from "../helpers/health-receivers.js";
import { waitFor } from "../helpers/wait.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ca: TestCa;
let expired: { key: string; cert: string };
beforeAll(() => {
  ca = makeTestCa();
  expired = expiredCertificate(ca);
});

describe.each(ENGINES)("link health (%s)", (engine) => {
  let server: TestServer;
  let dest: Destinations;
  let tls: { url: string; close(): Promise<void> };
  let rx: Receiver;
  let dns: TestDns;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = new ManualClock();
  let n = 0;

  beforeAll(async () => {
    dest = await startDestinations();
    tls = await startHttps(expired);
    rx = await startReceiver(ca);
    dns = await startDns((name) => (name.endsWith(".test") ? ["127.0.0.1"] : []));
    smtp = await startSmtpServer();
    server = await startTestServer({
      engine,
      clock,
      env: {
        LINK_CHECKS: "on",
        WEBHOOK_ALLOW_PRIVATE: "true",
        DNS_SERVERS: dns.server,
        SMTP_URL: smtp.url,
        LINK_CHECK_TIMEOUT_MS: "1000",
        LINK_CHECK_HOST_CONCURRENCY: "2",
        LINK_CHECK_HOST_RATE: "10000",
      },
      webhooks: { ca: ca.trust },
    });
  });
  afterAll(async () => {
    await server?.close();
    await dest?.close();
    await tls?.close();
    await rx?.close();
    await dns?.close();
    await smtp?.close();
  });

  const account = async (plan = "business") => {
    const email = `health${++n}-${engine}@example.com`;
    return { c: await signedInClient(server, email, plan), email };
  };
  const health = async (c: ApiClient, id: string) => {
    const r = await c.get(`/api/links/${id}/health`);
    expect(r.status, r.text).toBe(200);
    return r.body as { status: string; destinations: Array<Record<string, unknown> & { history: Array<Record<string, unknown>> }> };
  };
  const check = () => server.ctx.linkHealth.runNow();

  it("1,000 links to one host: each checked once a cycle, never more than two requests in flight there", async () => {
    const { c } = await account("enterprise");
    dest.eachDelayMs = 5;
    dest.maxInFlight = 0;
    const urls = Array.from({ length: 1000 }, (_, i) => `${dest.origin}/each/${i}`);
    const r = await c.post("/api/links/bulk", { urls: urls.join("\n") });
    expect(r.status, r.text).toBe(200);
    // The first cycle runs while the links are being made (each checked at once).
    await check();
    const eachRequests = () => dest.seen.filter((s) => s.path.startsWith("/each/"));
    const checkedRows = () =>
      server.ctx.storage.db
        .selectFrom("link_health")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("url", "like", `${dest.origin}/each/%`)
        .where("last_checked_at", "is not", null)
        .executeTakeFirstOrThrow();
    expect(Number((await checkedRows()).n)).toBe(1000);
    // Never one destination twice (on a machine this loaded, a check may time out while 1,000 links are written).
    expect(new Set(eachRequests().map((s) => s.path)).size).toBe(eachRequests().length);
    expect(eachRequests().length).toBeGreaterThan(990);
    expect(dest.maxInFlight).toBe(2);
    // A day later, the scheduled cycle: every destination again, exactly once, two at a time.
    dest.seen.length = 0;
    dest.maxInFlight = 0;
    clock.advance(DAY);
    await check();
    expect(eachRequests()).toHaveLength(1000);
    expect(new Set(eachRequests().map((s) => s.path)).size).toBe(1000);
    expect(dest.maxInFlight).toBe(2);
    const rows = await server.ctx.storage.db
      .selectFrom("link_health")
      .select(["state", "last_result", "last_error"])
      .where("url", "like", `${dest.origin}/each/%`)
      .execute();
    const tally = (list: Array<{ state: string; last_result: string | null }>) =>
      list.reduce<Record<string, number>>((t, r) => ({ ...t, [`${r.state}/${r.last_result}`]: (t[`${r.state}/${r.last_result}`] ?? 0) + 1 }), {});
    expect(tally(rows), JSON.stringify(rows.filter((r) => r.state !== "ok"))).toEqual({ "ok/ok": 1000 });
  });

  it("classifies each answer exactly: 200, 404, 500, a loop, a timeout, an expired certificate, 429, HEAD refused", async () => {
    const { c } = await account();
    const make = (url: string) => createLink(c, { url });
    const links = {
      ok: await make(`${dest.origin}/ok`),
      notFound: await make(`${dest.origin}/404`),
      serverError: await make(`${dest.origin}/500`),
      loop: await make(`${dest.origin}/loop-a`),
      slow: await make(`${dest.origin}/slow`),
      expired: await make(tls.url.replace("localhost", "hook.test")),
      limited: await make(`${dest.origin}/429`),
      getOnly: await make(`${dest.origin}/get-only`),
    };
    await check();
    const last = async (id: string) => {
      const { destinations } = await health(c, id);
      expect(destinations).toHaveLength(1);
      const d = destinations[0] as Record<string, unknown> & { history: unknown[] };
      expect(d.history).toHaveLength(1);
      return d;
    };
    expect(await last(links.ok.id)).toMatchObject({ destination: "default", state: "ok", last_result: "ok", status_code: 200, consecutive_failures: 0 });
    expect(await last(links.notFound.id)).toMatchObject({ state: "failing", last_result: "not_found", status_code: 404, consecutive_failures: 1 });
    expect(await last(links.serverError.id)).toMatchObject({ state: "failing", last_result: "server_error", status_code: 500 });
    expect(await last(links.loop.id)).toMatchObject({
      state: "failing",
      last_result: "loop",
      redirect_loop: true,
      status_code: 301,
      final_url: `${dest.origin}/loop-a`,
    });
    expect(await last(links.slow.id)).toMatchObject({ state: "failing", last_result: "timeout", status_code: null, error: "no answer within 1000 ms" });
    expect(await last(links.expired.id)).toMatchObject({
      state: "failing",
      last_result: "tls_expired",
      tls_valid_to: "2020-02-01T00:00:00.000Z",
      error: "the TLS certificate has expired",
    });
    expect(await last(links.limited.id)).toMatchObject({ state: "unknown", last_result: "rate_limited", status_code: 429, consecutive_failures: 0 });
    expect(await last(links.getOnly.id)).toMatchObject({ state: "ok", last_result: "ok", status_code: 200 });
    expect(dest.seen.filter((s) => s.path === "/get-only").map((s) => s.method)).toEqual(["HEAD", "GET"]);
    expect(dest.seen.filter((s) => s.path === "/ok").map((s) => s.method)).toEqual(["HEAD"]);
    // The loop: a, b, then b's answer points back at a (not asked again).
    expect(dest.seen.filter((s) => s.path.startsWith("/loop-")).map((s) => s.path)).toEqual(["/loop-a", "/loop-b"]);

    // The 429 is asked again after 5 minutes, not before; a second 429 waits 10.
    const limitedRequests = () => dest.seen.filter((s) => s.path === "/429").length;
    clock.advance(4 * 60_000);
    await check();
    expect(limitedRequests()).toBe(1);
    clock.advance(60_000);
    await check();
    expect(limitedRequests()).toBe(2);
    expect(await health(c, links.limited.id).then((h) => h.destinations[0])).toMatchObject({ state: "unknown", consecutive_failures: 0 });
  });

  it("three failures in a row break a destination, one success recovers it: events on the opted-in webhook, one digest a day", async () => {
    const { c, email } = await account();
    const hook = await c.post("/api/webhooks", { name: "Health", url: rx.url("/health", "hook.test"), events: ["link.broken", "link.recovered"] });
    expect(hook.status, hook.text).toBe(201);
    const clicks = await c.post("/api/webhooks", { name: "Clicks", url: rx.url("/clicks", "hook.test") });
    expect(clicks.status, clicks.text).toBe(201);
    expect(clicks.body.webhook.events).toEqual(["link_click"]);
    dest.flip = 500;
    const link = await createLink(c, { url: `${dest.origin}/flip` });
    const mails = () => smtp.messages.filter((m) => m.to.includes(email));
    const hookEvents = () => rx.requests.filter((r) => r.url === "/health");

    await check();
    expect((await health(c, link.id)).destinations[0]).toMatchObject({ state: "failing", consecutive_failures: 1 });
    clock.advance(HOUR);
    await check();
    expect((await health(c, link.id)).destinations[0]).toMatchObject({ state: "failing", consecutive_failures: 2 });
    expect(hookEvents()).toHaveLength(0);
    clock.advance(HOUR);
    await check();
    const broken = (await health(c, link.id)).destinations[0] as Record<string, unknown> & { history: Array<Record<string, unknown>> };
    expect(broken).toMatchObject({ state: "broken", consecutive_failures: 3, broken_since: new Date(clock.now()).toISOString() });
    expect(broken.history.map((h) => h.result)).toEqual(["server_error", "server_error", "server_error"]);

    const [brokeEvent] = await waitFor(() => (hookEvents().length >= 1 ? hookEvents() : null));
    expect(brokeEvent?.headers["x-snip-event"]).toBe("link.broken");
    const body = JSON.parse(brokeEvent?.body as string);
    expect(body.type).toBe("link.broken");
    expect(body.link).toMatchObject({ id: link.id, alias: link.alias, url: `${dest.origin}/flip` });
    expect(body.health).toMatchObject({ destination: "default", url: `${dest.origin}/flip`, state: "broken", result: "server_error", status_code: 500 });
    await waitFor(() => (mails().length === 1 ? true : null));
    expect(mails()[0]?.raw).toContain("Subject: Link health: 1 broke");
    expect(mails()[0]?.raw).toContain(`${dest.origin}/flip`);

    dest.flip = 200;
    clock.advance(HOUR);
    await check();
    expect((await health(c, link.id)).destinations[0]).toMatchObject({ state: "ok", consecutive_failures: 0, broken_since: null });
    const events = await waitFor(() => (hookEvents().length >= 2 ? hookEvents() : null));
    expect(events.map((e) => e.headers["x-snip-event"])).toEqual(["link.broken", "link.recovered"]);
    expect(rx.requests.filter((r) => r.url === "/clicks")).toHaveLength(0);
    // The recovery waits for the next day's digest: one email so far.
    expect(mails()).toHaveLength(1);
    clock.advance(DAY);
    await check();
    await waitFor(() => (mails().length === 2 ? true : null));
    expect(mails()[1]?.raw).toContain("Subject: Link health: 1 recovered");
    // Nothing changed since: no more email.
    clock.advance(DAY);
    await check();
    expect(mails()).toHaveLength(2);
  });

  it("an edited destination is checked again at once and starts over; a removed one is dropped", async () => {
    const { c } = await account();
    const link = await createLink(c, { url: `${dest.origin}/404`, ios_url: `${dest.origin}/ok` });
    await check();
    let h = await health(c, link.id);
    expect(h.destinations.map((d) => [d.destination, d.state])).toEqual([
      ["default", "failing"],
      ["ios", "ok"],
    ]);
    const r = await c.patch(`/api/links/${link.id}`, { url: `${dest.origin}/ok`, ios_url: null });
    expect(r.status, r.text).toBe(200);
    await check();
    h = await health(c, link.id);
    expect(h.destinations.map((d) => [d.destination, d.state, d.history.length])).toEqual([["default", "ok", 1]]);
  });

  it("answers 404 for a link of another account", async () => {
    const { c } = await account();
    const { c: other } = await account();
    const link = await createLink(c, { url: `${dest.origin}/ok` });
    expect((await other.get(`/api/links/${link.id}/health`)).status).toBe(404);
  });

  it("stops within a second while requests to a host that never answers are in flight or queued, recording none of them", async () => {
    // A long timeout, so that only the abort can end these requests in time; two in flight, one waiting at the host gate.
    const own = await startTestServer({
      engine,
      clock,
      env: { LINK_CHECKS: "on", WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server, LINK_CHECK_TIMEOUT_MS: "60000", LINK_CHECK_HOST_CONCURRENCY: "2" },
    });
    try {
      const c = await signedInClient(own, `health-stop-${engine}@example.com`, "business");
      // Made while the scheduler is stopped, so that one pass claims all three.
      await own.ctx.linkHealth.stop();
      for (const i of [1, 2, 3]) await createLink(c, { url: `${dest.origin}/slow/${i}` });
      const slowRows = () =>
        own.ctx.storage.db.selectFrom("link_health").select(["url", "last_checked_at", "state"]).where("url", "like", `${dest.origin}/slow/%`).execute();
      await waitFor(async () => (await slowRows()).length === 3, { what: "the three destinations' rows" });
      own.ctx.linkHealth.start();
      await waitFor(() => dest.seen.filter((s) => s.path.startsWith("/slow/")).length >= 2, { what: "two checks in flight" });
      const started = performance.now();
      await own.ctx.linkHealth.stop();
      expect(performance.now() - started).toBeLessThan(1000);
      expect(dest.seen.filter((s) => s.path.startsWith("/slow/"))).toHaveLength(2);
      expect((await slowRows()).map((r) => [r.last_checked_at, r.state])).toEqual([
        [null, "unknown"],
        [null, "unknown"],
        [null, "unknown"],
      ]);
    } finally {
      await own.close();
    }
  });
});
