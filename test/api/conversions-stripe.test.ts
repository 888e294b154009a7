// The Stripe integration (docs/conversions.md, Stripe) on every engine: the endpoint set, shown without its secret
// and removed; events signed with the stripe library's own test-header helper (no network) become leads, sales
// and refunds; replays, stale signatures, wrong tokens, bad signatures, oversized and odd bodies change nothing;
// another account cannot see or remove the endpoint.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { countRows } from "../helpers/conversions.js";
import { newClickId, storeTrackedClicks, trackedRow } from "../../src/conversions/index.js";

const SECRET = "whsec_test_0123456789abcdefABCDEF";
const PATH = /^http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/stripe\/webhook\/([A-Za-z0-9_-]{43})$/;

let eventSeq = 0;
function event(type: string, object: Record<string, unknown>, id = `evt_${++eventSeq}_${Date.now()}`): string {
  return JSON.stringify({ id, object: "event", type, api_version: "2025-01-27.acacia", created: Math.floor(Date.now() / 1000), data: { object } });
}

describe.each(ENGINES)("Stripe integration on %s", (engine) => {
  let server: TestServer;
  let a: ApiClient;
  let b: ApiClient;
  let free: ApiClient;
  let ownerA: string;
  let linkA: string;
  const db = () => server.ctx.storage.db;
  const counts = async () => {
    const n = (table: "conversion_leads" | "conversion_sales" | "conversion_refunds" | "stripe_events") => countRows(server, table);
    return { leads: await n("conversion_leads"), sales: await n("conversion_sales"), refunds: await n("conversion_refunds"), events: await n("stripe_events") };
  };

  async function click(at = Date.now()): Promise<string> {
    const id = newClickId();
    await storeTrackedClicks(server.ctx.storage, [
      trackedRow({ id, ownerId: ownerA, linkId: linkA, destination: "variant:2", country: "FR", userAgent: "Mozilla/5.0", referer: "", at }),
    ]);
    return id;
  }

  async function deliver(url: string, payload: string, opts: { secret?: string; timestamp?: number; header?: string | null; type?: string } = {}) {
    const header =
      opts.header === undefined
        ? Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, ...(opts.timestamp ? { timestamp: opts.timestamp } : {}) })
        : opts.header;
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": opts.type ?? "application/json; charset=utf-8", ...(header === null ? {} : { "stripe-signature": header }) },
      body: payload,
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  }

  let endpoint: string;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    a = await signedInClient(server, "stripe-a@example.com", "business");
    b = await signedInClient(server, "stripe-b@example.com", "business");
    free = await signedInClient(server, "stripe-free@example.com", "free");
    linkA = (await createLink(a, { url: "https://shop.example.com/" })).id;
    ownerA = (await db().selectFrom("users").select("id").where("email", "=", "stripe-a@example.com").executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => server?.close());

  it("PUT answers an unguessable address on the main host; GET shows it, never the secret; the secret is sealed at rest", async () => {
    const put = await a.put("/api/integrations/stripe", { signing_secret: SECRET });
    expect(put.status).toBe(200);
    expect(put.body.status).toBe("success");
    expect(Object.keys(put.body).sort()).toEqual(["created_at", "endpoint_url", "status", "updated_at"]);
    const m = PATH.exec(put.body.endpoint_url as string);
    expect(m).not.toBeNull();
    expect(put.body.endpoint_url.startsWith(server.url)).toBe(true);
    endpoint = put.body.endpoint_url as string;
    const got = await a.get("/api/integrations/stripe");
    expect(got.status).toBe(200);
    expect(got.body.endpoint_url).toBe(endpoint);
    expect(got.text).not.toContain("whsec_");
    const row = await db().selectFrom("stripe_endpoints").selectAll().where("owner_id", "=", ownerA).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain(m![1]!);
    // A new secret keeps the address.
    const again = await a.put("/api/integrations/stripe", { signing_secret: SECRET });
    expect(again.body.endpoint_url).toBe(endpoint);
  });

  it("refuses malformed, unknown, oversized fields, a lower plan, no session and no CSRF token", async () => {
    for (const body of [
      { signing_secret: "sk_live_nope" },
      { signing_secret: "whsec_short" },
      { signing_secret: `whsec_${"a".repeat(290)}` },
      { signing_secret: 7 },
      {},
    ]) {
      const r = await a.put("/api/integrations/stripe", body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("invalid_request");
    }
    const extra = await a.put("/api/integrations/stripe", { signing_secret: SECRET, endpoint_url: "https://evil.example/" });
    expect([extra.status, extra.body.code]).toEqual([400, "invalid_request"]);
    const plan = await free.put("/api/integrations/stripe", { signing_secret: SECRET });
    expect([plan.status, plan.body.code, plan.body.required_plan]).toEqual([403, "plan_required", "business"]);
    const anon = await new ApiClient(server.url).init();
    const out = await anon.put("/api/integrations/stripe", { signing_secret: SECRET });
    expect([out.status, out.body.code]).toEqual([401, "unauthenticated"]);
    const csrf = await a.put("/api/integrations/stripe", { signing_secret: SECRET }, { "x-csrf-token": "wrong" });
    expect([csrf.status, csrf.body.code]).toEqual([403, "csrf_failed"]);
  });

  it("another account sees none of it and cannot remove it (IDOR)", async () => {
    const got = await b.get("/api/integrations/stripe");
    expect([got.status, got.body.code]).toEqual([404, "not_found"]);
    const del = await b.delete("/api/integrations/stripe");
    expect([del.status, del.body.code]).toEqual([404, "not_found"]);
    expect((await a.get("/api/integrations/stripe")).body.endpoint_url).toBe(endpoint);
  });

  it("concurrent PUTs keep one endpoint and one address; another account's endpoint cannot reach this account's clicks", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => a.put("/api/integrations/stripe", { signing_secret: SECRET })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((r) => r.body.endpoint_url))).toEqual(new Set([endpoint]));
    const rows = await db().selectFrom("stripe_endpoints").select("owner_id").where("owner_id", "=", ownerA).execute();
    expect(rows).toHaveLength(1);

    const secretB = "whsec_account_b_0123456789abcdef";
    const endpointB = (await b.put("/api/integrations/stripe", { signing_secret: secretB })).body.endpoint_url as string;
    expect(endpointB).not.toBe(endpoint);
    const clickId = await click();
    const before = await counts();
    const payload = event("checkout.session.completed", {
      id: "cs_b",
      client_reference_id: clickId,
      amount_total: 500,
      currency: "eur",
      payment_status: "paid",
    });
    // B's signature on A's address: refused; A's click id through B's own endpoint: not B's click, nothing recorded.
    const crossed = await deliver(endpoint, payload, { secret: secretB });
    expect([crossed.status, crossed.body.code]).toEqual([400, "invalid_signature"]);
    expect((await deliver(endpointB, payload, { secret: secretB })).body.outcome).toBe("ignored");
    const after = await counts();
    expect([after.leads, after.sales]).toEqual([before.leads, before.sales]);
  });

  it("checkout.session.completed becomes a lead and a sale; a replay of the event changes nothing", async () => {
    const clickId = await click();
    const before = await counts();
    const payload = event("checkout.session.completed", {
      id: "cs_test_1",
      object: "checkout.session",
      client_reference_id: clickId,
      customer: "cus_A1",
      customer_details: { email: "buyer@example.com", name: "Buyer" },
      amount_total: 4900,
      currency: "eur",
      payment_status: "paid",
      payment_intent: "pi_A1",
      metadata: {},
    });
    const r = await deliver(endpoint, payload);
    expect(r).toEqual({ status: 200, body: { status: "success", received: true, outcome: "lead_and_sale" } });
    const sale = await db().selectFrom("conversion_sales").selectAll().where("invoice_id", "=", "pi_A1").executeTakeFirstOrThrow();
    expect([sale.amount, sale.currency, sale.payment_processor, sale.link_id, sale.destination]).toEqual([4900, "EUR", "stripe", linkA, "variant:2"]);
    const lead = await db().selectFrom("conversion_leads").selectAll().where("click_id", "=", clickId).executeTakeFirstOrThrow();
    expect([lead.event_name, lead.link_id]).toEqual(["Checkout", linkA]);
    expect(await counts()).toEqual({ ...before, leads: before.leads + 1, sales: before.sales + 1, events: before.events + 1 });
    // The same event again (signed afresh, as Stripe's retries are): nothing more.
    const replay = await deliver(endpoint, payload);
    expect(replay.body.outcome).toBe("duplicate");
    expect(await counts()).toEqual({ ...before, leads: before.leads + 1, sales: before.sales + 1, events: before.events + 1 });
  });

  it("the same event sent 10 times at once is recorded once", async () => {
    const clickId = await click();
    const before = await counts();
    const payload = event("checkout.session.completed", {
      id: "cs_test_burst",
      client_reference_id: null,
      metadata: { snip_click_id: clickId, snip_customer_id: "site-user-9" },
      amount_total: 1000,
      currency: "usd",
      payment_status: "paid",
      payment_intent: "pi_burst",
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(endpoint, payload)));
    expect(answers.every((x) => x.status === 200)).toBe(true);
    expect(answers.filter((x) => x.body.outcome === "lead_and_sale")).toHaveLength(1);
    expect(answers.filter((x) => x.body.outcome === "duplicate")).toHaveLength(9);
    expect(await counts()).toEqual({ ...before, leads: before.leads + 1, sales: before.sales + 1, events: before.events + 1 });
    const customer = await db().selectFrom("conversion_customers").select("external_id").where("click_id", "=", clickId).executeTakeFirstOrThrow();
    expect(customer.external_id).toBe("site-user-9");
  });

  it("an event left 'processing' by a process that died is recorded by Stripe's retry after a minute, not before", async () => {
    const clickId = await click();
    const eventId = `evt_died_${Date.now()}`;
    const payload = event(
      "checkout.session.completed",
      { id: "cs_test_died", client_reference_id: clickId, amount_total: 2500, currency: "eur", payment_status: "paid", payment_intent: "pi_died" },
      eventId,
    );
    // What a process killed between its claim and its record leaves behind.
    await db()
      .insertInto("stripe_events")
      .values({ owner_id: ownerA, event_id: eventId, type: "checkout.session.completed", outcome: "processing", at: Date.now() })
      .execute();
    const before = await counts();
    expect((await deliver(endpoint, payload)).body.outcome).toBe("duplicate");
    expect(await counts()).toEqual(before);
    await db()
      .updateTable("stripe_events")
      .set({ at: Date.now() - 61_000 })
      .where("event_id", "=", eventId)
      .execute();
    const answers = await Promise.all(Array.from({ length: 3 }, () => deliver(endpoint, payload)));
    expect(answers.map((x) => x.body.outcome).sort()).toEqual(["duplicate", "duplicate", "lead_and_sale"]);
    expect(await counts()).toEqual({ ...before, leads: before.leads + 1, sales: before.sales + 1 });
    const row = await db().selectFrom("stripe_events").select("outcome").where("event_id", "=", eventId).executeTakeFirstOrThrow();
    expect(row.outcome).toBe("lead_and_sale");
  });

  it("invoice.paid is a sale of the bound customer once per invoice; charge.refunded refunds its running total once", async () => {
    const paid = (id: string) =>
      event("invoice.paid", { id, object: "invoice", customer: "cus_A1", amount_paid: 2500, currency: "eur", subscription_details: { metadata: null } });
    expect((await deliver(endpoint, paid("in_100"))).body.outcome).toBe("sale");
    // Another event about the same invoice adds nothing.
    expect((await deliver(endpoint, paid("in_100"))).body.outcome).toBe("ignored");
    const invoiceSale = await db().selectFrom("conversion_sales").selectAll().where("invoice_id", "=", "in_100").executeTakeFirstOrThrow();
    expect([invoiceSale.amount, invoiceSale.link_id, invoiceSale.event_name]).toEqual([2500, linkA, "Invoice paid"]);

    const refunded = (total: number) =>
      event("charge.refunded", { id: "ch_1", object: "charge", payment_intent: "pi_A1", amount: 4900, amount_refunded: total });
    expect((await deliver(endpoint, refunded(1000))).body.outcome).toBe("refund");
    expect((await deliver(endpoint, refunded(1000))).body.outcome).toBe("ignored");
    expect((await deliver(endpoint, refunded(4900))).body.outcome).toBe("refund");
    const sale = await db().selectFrom("conversion_sales").select(["refunded"]).where("invoice_id", "=", "pi_A1").executeTakeFirstOrThrow();
    expect(sale.refunded).toBe(4900);
    const refunds = await db().selectFrom("conversion_refunds").select("amount").orderBy("amount").execute();
    expect(refunds.map((r) => r.amount)).toEqual([1000, 3900]);
  });

  it("a bad or missing signature, a stale timestamp, a wrong token, an odd body: refused or ignored, nothing recorded", async () => {
    const clickId = await click();
    const before = await counts();
    const payload = event("checkout.session.completed", {
      id: "cs_x",
      client_reference_id: clickId,
      amount_total: 100,
      currency: "eur",
      payment_status: "paid",
    });
    const wrong = await deliver(endpoint, payload, { secret: "whsec_someone_else_0123456789" });
    expect([wrong.status, wrong.body.code]).toEqual([400, "invalid_signature"]);
    const missing = await deliver(endpoint, payload, { header: null });
    expect([missing.status, missing.body.code]).toEqual([400, "invalid_signature"]);
    const garbage = await deliver(endpoint, payload, { header: "t=abc,v1=zz" });
    expect([garbage.status, garbage.body.code]).toEqual([400, "invalid_signature"]);
    const stale = await deliver(endpoint, payload, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect([stale.status, stale.body.code]).toEqual([400, "invalid_signature"]);
    expect(stale.body.message).toMatch(/tolerance/);
    // Someone else's body under a valid signature of another one.
    const tampered = await deliver(endpoint, payload.replace('"amount_total":100', '"amount_total":999999'), {
      header: Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
    });
    expect([tampered.status, tampered.body.code]).toEqual([400, "invalid_signature"]);
    const token = PATH.exec(endpoint)![1]!;
    const other = endpoint.replace(token, `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`);
    const unknown = await deliver(other, payload);
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
    const short = await deliver(endpoint.replace(token, "abc"), payload);
    expect([short.status, short.body.code]).toEqual([404, "not_found"]);
    const big = JSON.stringify({ id: "evt_big", type: "checkout.session.completed", data: { object: { pad: "x".repeat(300 * 1024) } } });
    const huge = await deliver(endpoint, big);
    expect([huge.status, huge.body.code]).toEqual([413, "payload_too_large"]);
    const form = await deliver(endpoint, "a=b", { type: "application/x-www-form-urlencoded" });
    expect([form.status, form.body.code]).toEqual([400, "invalid_request"]);
    const notJson = await deliver(endpoint, "{not json");
    expect([notJson.status, notJson.body.code]).toEqual([400, "invalid_request"]);
    for (const shape of ["[1,2]", '"x"', '{"zzz":1}', '{"id":"evt_1","type":7}']) {
      const r = await deliver(endpoint, shape);
      expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
    }
    expect(await counts()).toEqual(before);

    // Signed right: an unknown type, odd field types, a foreign or expired click id are acknowledged and ignored.
    expect((await deliver(endpoint, event("customer.created", { id: "cus_new" }))).body).toEqual({ status: "success", received: true, outcome: "ignored" });
    const odd = event("checkout.session.completed", { id: ["x"], client_reference_id: { $gt: "" }, amount_total: "100", currency: 5, payment_status: "paid" });
    expect((await deliver(endpoint, odd)).body.outcome).toBe("ignored");
    const foreign = event("checkout.session.completed", {
      id: "cs_f",
      client_reference_id: newClickId(),
      amount_total: 100,
      currency: "eur",
      payment_status: "paid",
    });
    expect((await deliver(endpoint, foreign)).body.outcome).toBe("ignored");
    const oldClick = await click(Date.now() - 91 * 86_400_000);
    const expired = event("checkout.session.completed", {
      id: "cs_e",
      client_reference_id: oldClick,
      amount_total: 100,
      currency: "eur",
      payment_status: "paid",
    });
    expect((await deliver(endpoint, expired)).body.outcome).toBe("ignored");
    // The account's own attribution window, not the default's.
    await db().updateTable("users").set({ attribution_days: 7 }).where("id", "=", ownerA).execute();
    const weekOld = await click(Date.now() - 8 * 86_400_000);
    const pastWindow = event("checkout.session.completed", {
      id: "cs_w",
      client_reference_id: weekOld,
      amount_total: 100,
      currency: "eur",
      payment_status: "paid",
    });
    expect((await deliver(endpoint, pastWindow)).body.outcome).toBe("ignored");
    await db().updateTable("users").set({ attribution_days: 90 }).where("id", "=", ownerA).execute();
    const after = await counts();
    expect([after.leads, after.sales, after.refunds]).toEqual([before.leads, before.sales, before.refunds]);
  });

  it("DELETE removes the endpoint: its address answers 404", async () => {
    const del = await a.delete("/api/integrations/stripe");
    expect(del.status).toBe(200);
    const payload = event("customer.created", { id: "cus_late" });
    const late = await deliver(endpoint, payload);
    expect([late.status, late.body.code]).toEqual([404, "not_found"]);
    expect((await a.get("/api/integrations/stripe")).status).toBe(404);
    expect((await a.delete("/api/integrations/stripe")).status).toBe(404);
  });
});
