// Webhook address checks when DNS stops answering (a relay in front of a real loopback DNS server that
// reads and drops every query): creation answers 400 naming the silent DNS, a test event and a click's
// delivery log "DNS did not answer", each within RECEIVER_DNS_TIMEOUT_MS; deliveries resume when DNS does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { switchableDns } from "../helpers/dns.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";
import { type Receiver, type TestCa, type TestDns, makeTestCa, startDns, startReceiver } from "../helpers/webhook-receivers.js";
import { RECEIVER_DNS_TIMEOUT_MS } from "../../src/webhooks/receiver-check.js";

const SILENT = (host: string) => `DNS did not answer for ${host} within ${RECEIVER_DNS_TIMEOUT_MS / 1000} s; try again later`;
/** Slack for a loaded machine on top of the DNS bound; the point is that nothing waits for minutes. */
const BOUND_MS = RECEIVER_DNS_TIMEOUT_MS + 1_500;

describe("webhook address checks with DNS down", () => {
  let ca: TestCa;
  let dns: TestDns;
  let relay: Awaited<ReturnType<typeof switchableDns>>;
  let rx: Receiver;
  let server: TestServer;
  let c: ApiClient;

  beforeAll(async () => {
    ca = makeTestCa();
    dns = await startDns((name) => (name === "hook.test" || name === "other.test" ? ["127.0.0.1"] : []));
    relay = await switchableDns(dns.server);
    rx = await startReceiver(ca);
    server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: relay.address }, webhooks: { ca: ca.trust } });
    c = await signedInClient(server, "dns-down@example.com", "business");
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
    await relay?.close();
    await dns?.close();
  });

  it("creation: 400 invalid_request on url naming the silent DNS, within the bound", async () => {
    relay.answering = false;
    try {
      const started = Date.now();
      const r = await c.post("/api/webhooks", { name: "x", url: rx.url("/never", "other.test") });
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        code: "invalid_request",
        message: `url: ${SILENT("other.test")}`,
        details: [{ field: "url", message: SILENT("other.test") }],
      });
      expect(await server.ctx.storage.db.selectFrom("webhooks").select("id").execute()).toEqual([]);
    } finally {
      relay.answering = true;
    }
  });

  it("a test event and a click's delivery log the silent DNS, within the bound; both deliver again once DNS answers", async () => {
    const created = await c.post("/api/webhooks", { name: "h", url: rx.url("/dns", "hook.test") });
    expect(created.status, created.text).toBe(201);
    const id = created.body.webhook.id as string;
    expect((await c.post("/api/links", { url: "https://example.com/dns", alias: "dns-down" })).status).toBe(201);

    relay.answering = false;
    const started = Date.now();
    const t = await c.post(`/api/webhooks/${id}/test`);
    expect(Date.now() - started).toBeLessThan(BOUND_MS);
    expect(t.status).toBe(200);
    expect(t.body.delivery).toMatchObject({ status_code: null, error: SILENT("hook.test") });

    expect(await visit(server.url, "/dns-down", { "user-agent": UA.windows })).toBe(302);
    const logged = await within(
      10_000,
      async () => (await c.get(`/api/webhooks/${id}/deliveries`)).body.deliveries as Array<{ error: string | null; duration_ms: number }>,
      (ds) => ds.length >= 2,
    );
    expect(logged.map((d) => d.error)).toEqual([SILENT("hook.test"), SILENT("hook.test")]);
    expect(rx.requests.filter((r) => r.url === "/dns")).toEqual([]);

    relay.answering = true;
    const again = await c.post(`/api/webhooks/${id}/test`);
    expect(again.body.delivery).toMatchObject({ status_code: 204, error: null });
    expect(await visit(server.url, "/dns-down", { "user-agent": UA.windows })).toBe(302);
    await rx.waitFor(2);
    expect(rx.requests.filter((r) => r.url === "/dns")).toHaveLength(2);
  });
});
