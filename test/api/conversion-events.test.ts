// Leads and sales as events (docs/webhooks.md, Events; docs/stream.md; docs/api.md, Live feed) on both engines:
// webhooks take lead.created and sale.created only when they opt in (signed, exactly the documented payload, once
// per conversion however often it is sent), link_click stays as it was; the click stream's outbox gets one row per
// sink in the recording transaction; the live feed sends a `conversion` event as it comes.
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { testAccount } from "../helpers/team.js";
import { openSse, type SseStream } from "../helpers/sse.js";
import { visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";
import { trackedClick } from "../helpers/conversions.js";
import { type Receiver, type TestCa, type TestDns, makeTestCa, startDns, startReceiver } from "../helpers/webhook-receivers.js";
import { decodeOutward } from "../../src/streams/event-outbox.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function signed(secret: string, header: string | undefined, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  return m !== null && createHmac("sha256", secret).update(`${m[1]}.${body}`).digest("hex") === m[2];
}

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});

describe.each(ENGINES)("conversion events (%s)", (engine) => {
  let server: TestServer;
  let dns: TestDns;
  let rx: Receiver;
  let n = 0;

  beforeAll(async () => {
    dns = await startDns((name) => (name === "hook.test" ? ["127.0.0.1"] : []));
    rx = await startReceiver(ca);
    server = await startTestServer({ engine, env: { WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server }, webhooks: { ca: ca.trust } });
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
    await dns?.close();
  });

  /** A Business account with a key of scope conversions:write and one link. */
  async function account() {
    const a = await testAccount(server, `events${++n}-${engine}@example.com`, "business");
    const k = await a.client.post("/api/keys", { name: "track", scopes: ["conversions:write"] });
    expect(k.status, k.text).toBe(201);
    const link = await createLink(a.client, { url: "https://shop.example.com/landing" });
    return { ...a, key: k.body.secret as string, link };
  }

  async function track(key: string, path: "lead" | "sale", body: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server.url}/api/track/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  async function hook(c: ApiClient, path: string, events?: string[]) {
    const r = await c.post("/api/webhooks", { name: path, url: rx.url(path), ...(events ? { events } : {}) });
    expect(r.status, r.text).toBe(201);
    return r.body as { webhook: { id: string; events: string[] }; secret: string };
  }

  const at = (path: string) => rx.requests.filter((r) => r.url === path);

  /** A link's part of an event: the shop's landing page, in no folder. */
  const linkObject = (link: { id: string; alias: string }) => ({
    id: link.id,
    alias: link.alias,
    domain: null,
    short_url: `${server.url}/${link.alias}`,
    url: "https://shop.example.com/landing",
    folder_id: null,
  });

  it("webhooks take lead.created and sale.created only when they opt in: signed, the documented payload, once each", async () => {
    const a = await account();
    const plain = await hook(a.client, `/plain-${engine}`);
    const conv = await hook(a.client, `/conv-${engine}`, ["sale.created", "lead.created"]);
    expect(plain.webhook.events).toEqual(["link_click"]);
    // Kept in the registry's order, whatever order they were sent in.
    expect(conv.webhook.events).toEqual(["lead.created", "sale.created"]);

    expect(await visit(server.url, `/${a.link.alias}`)).toBe(302);
    await waitFor(() => at(`/plain-${engine}`).length === 1, { what: "the click's delivery" });

    const clickId = await trackedClick(server, a.link.id, Date.now(), "variant:2");
    const lead = { click_id: clickId, customer_external_id: "cus-1", event_name: "Sign up", customer_name: "Ada", customer_email: "ada@example.com" };
    const answers = await Promise.all(Array.from({ length: 5 }, () => track(a.key, "lead", lead)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const leadId = answers[0]!.body.lead.id as string;
    const sale = await track(a.key, "sale", { customer_external_id: "cus-1", amount: 4999, currency: "EUR", invoice_id: "inv-1" });
    expect(sale.status).toBe(201);
    expect((await track(a.key, "sale", { customer_external_id: "cus-1", amount: 4999, currency: "EUR", invoice_id: "inv-1" })).status).toBe(200);

    const got = await waitFor(() => (at(`/conv-${engine}`).length >= 2 ? at(`/conv-${engine}`) : null), { what: "the lead and sale deliveries" });
    // Nothing more comes: a repeat is no new event (a second lead or sale would be here by the time the log is written).
    await waitFor(async () => (await a.client.get(`/api/webhooks/${conv.webhook.id}/deliveries`)).body.deliveries.length === 2, { what: "the log" });
    expect(at(`/conv-${engine}`).length).toBe(2);
    const [leadReq, saleReq] = [...got].sort((x, y) => String(x.headers["x-snip-event"]).localeCompare(String(y.headers["x-snip-event"])));
    expect(leadReq!.headers["x-snip-event"]).toBe("lead.created");
    expect(saleReq!.headers["x-snip-event"]).toBe("sale.created");
    for (const r of [leadReq!, saleReq!]) expect(signed(conv.secret, r.headers["x-snip-signature"] as string, r.body)).toBe(true);
    const linkPart = linkObject(a.link);
    const leadBody = JSON.parse(leadReq!.body);
    expect(leadBody).toEqual({
      version: 1,
      id: expect.stringMatching(UUID),
      type: "lead.created",
      created_at: expect.stringMatching(ISO),
      test: false,
      link: linkPart,
      lead: {
        id: leadId,
        event_name: "Sign up",
        click_id: clickId,
        destination: "variant:2",
        metadata: null,
        created_at: expect.stringMatching(ISO),
        customer_external_id: "cus-1",
      },
    });
    expect(leadReq!.headers["x-snip-delivery"]).toBe(leadBody.id);
    // Never a customer's name or email.
    expect(leadReq!.body).not.toContain("Ada");
    expect(leadReq!.body).not.toContain("ada@example.com");
    expect(JSON.parse(saleReq!.body)).toEqual({
      version: 1,
      id: expect.stringMatching(UUID),
      type: "sale.created",
      created_at: expect.stringMatching(ISO),
      test: false,
      link: linkPart,
      sale: {
        id: sale.body.sale.id,
        event_name: "Purchase",
        amount: 4999,
        currency: "EUR",
        invoice_id: "inv-1",
        payment_processor: "custom",
        click_id: clickId,
        destination: "variant:2",
        metadata: null,
        created_at: expect.stringMatching(ISO),
        customer_external_id: "cus-1",
      },
    });
    // The plain webhook got its click and nothing of the conversions; the opted-in one no click.
    expect(at(`/plain-${engine}`).map((r) => r.headers["x-snip-event"])).toEqual(["link_click"]);
    const log = (await a.client.get(`/api/webhooks/${conv.webhook.id}/deliveries`)).body.deliveries as Array<{ event: string; status_code: number }>;
    expect(log.map((d) => [d.event, d.status_code]).sort()).toEqual([
      ["lead.created", 204],
      ["sale.created", 204],
    ]);
  });

  it("events are changed with PATCH; a wrong list is 400 invalid_request, never stored", async () => {
    const a = await account();
    const h = await hook(a.client, `/patch-${engine}`);
    const ok = await a.client.patch(`/api/webhooks/${h.webhook.id}`, { events: ["link_click", "link.split_decided"] });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.webhook.events).toEqual(["link_click", "link.split_decided"]);
    for (const events of [[], ["lead"], ["link_click", "link_click"], "lead.created", [1], Array(5).fill("sale.created")]) {
      const r = await a.client.patch(`/api/webhooks/${h.webhook.id}`, { events });
      expect(r.status, JSON.stringify(events)).toBe(400);
      expect(r.body.code, JSON.stringify(events)).toBe("invalid_request");
    }
    const bad = await a.client.post("/api/webhooks", { name: "x", url: rx.url("/x"), events: ["sale.refunded"] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    const list = (await a.client.get("/api/webhooks")).body.webhooks as Array<{ events: string[] }>;
    expect(list.map((w) => w.events)).toEqual([["link_click", "link.split_decided"]]);
  });

  it("the click stream's outbox gets the lead and the sale with their conversion, once, each sink its owner's", async () => {
    const a = await account();
    const b = await account();
    // A broker nobody listens on: the rows stay in the outbox to be read here.
    const s = await a.client.post("/api/streams", { name: "R", kind: "redis", url: "redis://127.0.0.1:1" });
    expect(s.status, s.text).toBe(201);
    const sinkId = s.body.stream.id as string;
    const clickId = await trackedClick(server, a.link.id);
    const lead = { click_id: clickId, customer_external_id: "cus-s", event_name: "Sign up" };
    const first = await track(a.key, "lead", lead);
    expect(first.status).toBe(201);
    expect((await track(a.key, "lead", lead)).status).toBe(200);
    const sale = await track(a.key, "sale", { customer_external_id: "cus-s", amount: 700, currency: "USD" });
    expect(sale.status).toBe(201);
    // Another account's conversion reaches no sink of this one.
    const other = await trackedClick(server, b.link.id);
    expect((await track(b.key, "lead", { click_id: other, customer_external_id: "cus-b", event_name: "Sign up" })).status).toBe(201);

    const rows = await server.ctx.storage.db.selectFrom("stream_outbox").selectAll().where("sink_id", "=", sinkId).orderBy("id").execute();
    const events = rows.map((r) => decodeOutward(r.events as string));
    expect(rows.map((r) => [r.event_id, Number(r.n)])).toEqual([
      [`lead.created:${first.body.lead.id}`, 1],
      [`sale.created:${sale.body.sale.id}`, 1],
    ]);
    expect(events.map((e) => [e!.type, e!.owner_id, e!.link?.link_id, e!.link?.alias])).toEqual([
      ["lead.created", a.id, a.link.id, a.link.alias],
      ["sale.created", a.id, a.link.id, a.link.alias],
    ]);
    // The body a broker gets: the stream's head, the link, the conversion.
    const body = JSON.parse((server.ctx.streamPublisher as any).events(rows[1], Date.parse("2026-01-02T03:04:05.000Z"))[0].body);
    expect(body).toEqual({
      schema: 1,
      id: `sale.created:${sale.body.sale.id}`,
      version: 1,
      type: "sale.created",
      created_at: "2026-01-02T03:04:05.000Z",
      test: false,
      owner_id: a.id,
      link: linkObject(a.link),
      sale: {
        id: sale.body.sale.id,
        event_name: "Purchase",
        amount: 700,
        currency: "USD",
        invoice_id: null,
        payment_processor: "custom",
        click_id: clickId,
        destination: null,
        metadata: null,
        created_at: expect.stringMatching(ISO),
        customer_external_id: "cus-s",
      },
    });
  });

  it("the live feed sends each new lead and sale as a `conversion` event, once, without personal fields", async () => {
    const a = await account();
    const s: SseStream = await openSse(server.url, "/api/analytics/live", a.client.cookie);
    try {
      await waitFor(() => s.raw().includes("retry: 3000"), { what: "the stream's start" });
      const clickId = await trackedClick(server, a.link.id, Date.now(), "rule:1");
      const lead = { click_id: clickId, customer_external_id: "cus-l", event_name: "Trial", customer_email: "l@example.com" };
      expect((await track(a.key, "lead", lead)).status).toBe(201);
      expect((await track(a.key, "lead", lead)).status).toBe(200);
      expect((await track(a.key, "sale", { customer_external_id: "cus-l", amount: 1250, currency: "JPY", event_name: "Plan" })).status).toBe(201);
      const got = await s.next("conversion", 2, 2_000);
      const host = new URL(server.url).host;
      const common = { link_id: a.link.id, alias: a.link.alias, domain: host, destination: "rule:1", at: expect.stringMatching(ISO) };
      expect(got.map((e) => e.data)).toEqual([
        { type: "lead", event_name: "Trial", amount: null, currency: null, ...common },
        { type: "sale", event_name: "Plan", amount: 1250, currency: "JPY", ...common },
      ]);
      expect(s.raw()).not.toContain("l@example.com");
      // The repeat sent nothing: a click now is the next event.
      expect(await visit(server.url, `/${a.link.alias}`)).toBe(302);
      await s.next("click", 1, 2_000);
      expect(s.events.filter((e) => e.event === "conversion").length).toBe(2);
    } finally {
      s.close();
    }
  });
});
