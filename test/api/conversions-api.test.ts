// The tracking API (docs/conversions.md, The API) over HTTP on every engine: leads, sales and refunds with a key
// of scope conversions:write, idempotent under 20 concurrent sends; unknown, foreign and expired click ids;
// currencies kept apart; customers read and erased; scopes, plans and the hostile bodies a script may send.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { trackedClick } from "../helpers/conversions.js";
import { expectContract, rowCounts } from "../helpers/routes.js";

const DAY = 86_400_000;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

describe.each(ENGINES)("tracking API on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  let key: string;
  let linkId: string;
  let otherKey: string;
  let otherLinkId: string;

  async function newKey(c: ApiClient, scopes: string[]): Promise<string> {
    const r = await c.post("/api/keys", { name: scopes.join(" "), scopes });
    expect(r.status, r.text).toBe(201);
    return r.body.secret as string;
  }

  async function call(method: string, path: string, secret: string | null, body?: unknown, raw?: string): Promise<Answer> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (secret) headers.authorization = `Bearer ${secret}`;
    if (body !== undefined || raw !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    const a = { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
    expectContract(a, `${method} ${path}`);
    return a;
  }
  const lead = (body: unknown, secret = key) => call("POST", "/api/track/lead", secret, body);
  const sale = (body: unknown, secret = key) => call("POST", "/api/track/sale", secret, body);

  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await signedInClient(server, "track-owner@example.com", "business");
    key = await newKey(owner, ["conversions:write"]);
    linkId = (await createLink(owner, { url: "https://shop.example.com/landing" })).id;
    const other = await signedInClient(server, "track-other@example.com", "business");
    otherKey = await newKey(other, ["conversions:write"]);
    otherLinkId = (await createLink(other, { url: "https://shop.example.com/other" })).id;
  });
  afterAll(async () => server?.close());

  it("records a lead (201) and answers a repeat 200 with the first lead; 20 at once count once", async () => {
    const clickId = await trackedClick(server, linkId, Date.now(), "rule:1");
    const first = await lead({ click_id: clickId, customer_external_id: "u-1", event_name: "Sign up", customer_name: "Zoë 🚀" });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({
      status: "success",
      created: true,
      lead: {
        id: expect.any(String),
        event_name: "Sign up",
        click_id: clickId,
        link_id: linkId,
        destination: "rule:1",
        metadata: null,
        created_at: expect.any(String),
      },
      customer: {
        id: expect.any(String),
        external_id: "u-1",
        name: "Zoë 🚀",
        email: null,
        click_id: clickId,
        link_id: linkId,
        destination: "rule:1",
        created_at: first.body.lead.created_at,
      },
    });
    const again = await lead({ click_id: clickId, customer_external_id: "u-1", event_name: "Sign up" });
    expect([again.status, again.body.lead, again.body.created]).toEqual([200, first.body.lead, false]);

    const burstClick = await trackedClick(server, linkId);
    const burst = await Promise.all(Array.from({ length: 20 }, () => lead({ click_id: burstClick, customer_external_id: "u-burst", event_name: "Sign up" })));
    expect(burst.map((r) => r.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
    expect(new Set(burst.map((r) => r.body.lead.id)).size).toBe(1);
    const rows = await server.ctx.storage.db.selectFrom("conversion_leads").select("id").where("click_id", "=", burstClick).execute();
    expect(rows).toEqual([{ id: burst[0]!.body.lead.id }]);
  });

  it("answers an unknown or another account's click id 404 and one older than the window 422 attribution_expired", async () => {
    const before = await rowCounts(server);
    const unknown = await lead({ click_id: "AAAAAAAAAAAAAAAAAAAAAA", customer_external_id: "u-2", event_name: "Sign up" });
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
    const foreign = await lead({ click_id: await trackedClick(server, otherLinkId), customer_external_id: "u-2", event_name: "Sign up" });
    expect([foreign.status, foreign.body.code]).toEqual([404, "not_found"]);
    const old = await lead({ click_id: await trackedClick(server, linkId, Date.now() - 91 * DAY), customer_external_id: "u-2", event_name: "Sign up" });
    expect(old.body).toEqual({
      status: "error",
      code: "attribution_expired",
      message: "the click is older than the attribution window (90 days)",
      attribution_days: 90,
    });
    expect(old.status).toBe(422);
    expect(await rowCounts(server)).toEqual(before);
  });

  it("records a sale once per invoice_id under 20 concurrent sends, keeps currencies apart and refunds it", async () => {
    await lead({ click_id: await trackedClick(server, linkId, Date.now(), "variant:1"), customer_external_id: "buyer", event_name: "Sign up" });
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => sale({ customer_external_id: "buyer", amount: 2500, currency: "USD", invoice_id: "inv-42" })),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
    expect(burst[0]!.body.sale).toMatchObject({
      amount: 2500,
      currency: "USD",
      refunded: 0,
      invoice_id: "inv-42",
      link_id: linkId,
      destination: "variant:1",
      event_name: "Purchase",
    });
    const eur = await sale({
      customer_external_id: "buyer",
      amount: 900,
      currency: "eur",
      invoice_id: "inv-43",
      event_name: "Upgrade",
      payment_processor: "paddle",
      metadata: { seats: 3 },
    });
    expect(eur.status).toBe(201);
    expect(eur.body.sale).toMatchObject({ amount: 900, currency: "EUR", event_name: "Upgrade", payment_processor: "paddle", metadata: { seats: 3 } });

    const part = await call("POST", "/api/track/refund", key, { invoice_id: "inv-42", amount: 500 });
    expect([part.status, part.body.refund.amount, part.body.sale.refunded]).toEqual([200, 500, 500]);
    const negative = await sale({ customer_external_id: "buyer", amount: -1000, currency: "USD", invoice_id: "inv-42" });
    expect([negative.status, negative.body.created, negative.body.refund.amount, negative.body.sale.refunded]).toEqual([200, false, 1000, 1500]);
    const tooMuch = await call("POST", "/api/track/refund", key, { invoice_id: "inv-42", amount: 1001 });
    expect([tooMuch.status, tooMuch.body.code, tooMuch.body.refundable]).toEqual([409, "conflict", 1000]);
    const rest = await Promise.all(Array.from({ length: 20 }, () => call("POST", "/api/track/refund", key, { invoice_id: "inv-42" })));
    expect(rest.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
    expect(rest.filter((r) => r.body.refund !== null).map((r) => r.body.refund.amount)).toEqual([1000]);

    const c = await call("GET", "/api/customers/buyer", key);
    expect(c.status).toBe(200);
    expect(c.body.customer.sales.map((s: { amount: number; currency: string; refunded: number }) => [s.amount, s.currency, s.refunded])).toEqual([
      [2500, "USD", 2500],
      [900, "EUR", 0],
    ]);
    expect(c.body.customer.click).toMatchObject({ link_id: linkId, destination: "variant:1", country: "FR", device: "desktop", referrer_host: "direct" });
    expect(c.body.customer.link).toEqual({ id: linkId, alias: expect.any(String), domain: null, url: "https://shop.example.com/landing" });
    // Unknown invoice, unknown customer, another account's customer: 404.
    expect((await call("POST", "/api/track/refund", key, { invoice_id: "inv-none" })).status).toBe(404);
    expect((await sale({ customer_external_id: "nobody", amount: 1, currency: "EUR" })).status).toBe(404);
    expect((await sale({ customer_external_id: "buyer", amount: 1, currency: "EUR" }, otherKey)).status).toBe(404);
  });

  it("refuses hostile bodies with 400 invalid_request naming the field, writing nothing", async () => {
    const clickId = await trackedClick(server, linkId);
    await lead({ click_id: clickId, customer_external_id: "hostile", event_name: "Sign up" });
    const before = await rowCounts(server);
    const cases: Array<[string, unknown, string]> = [
      ["/api/track/lead", { click_id: clickId, customer_external_id: "h", event_name: "e", extra: 1 }, "extra"],
      ["/api/track/lead", { click_id: clickId, customer_external_id: "h", event_name: "e", metadata: { big: "x".repeat(5000) } }, "metadata"],
      ["/api/track/lead", { click_id: clickId, customer_external_id: "h", event_name: "e", metadata: [1, 2] }, "metadata"],
      ["/api/track/lead", { click_id: clickId, customer_external_id: "x".repeat(201), event_name: "e" }, "customer_external_id"],
      ["/api/track/lead", { click_id: clickId, customer_external_id: " ", event_name: "e" }, "customer_external_id"],
      ["/api/track/lead", { click_id: 5, customer_external_id: "h", event_name: "e" }, "click_id"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: 10, currency: "EURO" }, "currency"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: 10, currency: "ZZZ" }, "currency"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: -10, currency: "EUR" }, "invoice_id"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: 10.5, currency: "EUR" }, "amount"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: "10", currency: "EUR" }, "amount"],
      ["/api/track/sale", { customer_external_id: "hostile", amount: 1e300, currency: "EUR" }, "amount"],
      ["/api/track/sale", { customer_external_id: "hostile", currency: "EUR" }, "amount"],
      ["/api/track/refund", { invoice_id: "inv-x", amount: -5 }, "amount"],
      ["/api/track/refund", { invoice_id: "inv-x", amount: 0 }, "amount"],
    ];
    const wrong: string[] = [];
    for (const [path, body, field] of cases) {
      const r = await call("POST", path, key, body);
      const named = (r.body.details ?? []).some((d: { field: string }) => d.field.split(/[./]/).includes(field));
      if (r.status !== 400 || r.body.code !== "invalid_request" || !named)
        wrong.push(`${path} ${JSON.stringify(body).slice(0, 80)} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    for (const raw of ["{", "[]", "null", '"x"', `{"click_id":"${"a".repeat(2_000_000)}"}`]) {
      const r = await call("POST", "/api/track/lead", key, undefined, raw);
      if (r.status !== 400 && r.status !== 413) wrong.push(`raw ${raw.slice(0, 20)} -> ${r.status}`);
    }
    expect(wrong).toEqual([]);
    expect(await rowCounts(server)).toEqual(before);
  });

  it("lists, reads and erases customers of the key's account only; another account's key gets 404", async () => {
    const clickId = await trackedClick(server, linkId);
    const made = await lead({
      click_id: clickId,
      customer_external_id: "ünï/cödé 1",
      event_name: "Sign up",
      customer_email: "p@example.com",
      metadata: { ref: "x" },
    });
    expect(made.status).toBe(201);
    const path = `/api/customers/${encodeURIComponent("ünï/cödé 1")}`;
    expect((await call("GET", path, key)).body.customer.email).toBe("p@example.com");
    expect((await call("GET", path, otherKey)).status).toBe(404);
    expect((await call("DELETE", path, otherKey)).status).toBe(404);
    const list = await call("GET", "/api/customers?limit=100", key);
    expect(list.body.customers.map((c: { external_id: string }) => c.external_id)).toContain("ünï/cödé 1");
    expect((await call("GET", "/api/customers?limit=100", otherKey)).body.customers).toEqual([]);
    expect((await call("GET", "/api/customers?cursor=zz", key)).status).toBe(400);

    const erased = await call("DELETE", path, key);
    expect([erased.status, erased.text]).toEqual([200, '{"status":"success"}']);
    expect((await call("GET", path, key)).status).toBe(404);
    expect((await call("DELETE", path, key)).status).toBe(404);
    const kept = await server.ctx.storage.db
      .selectFrom("conversion_leads")
      .select(["customer_id", "metadata", "link_id"])
      .where("click_id", "=", clickId)
      .execute();
    expect(kept).toEqual([{ customer_id: null, metadata: null, link_id: linkId }]);
  });

  it("needs the conversions:write scope (403 insufficient_scope), a key (401) and the Business plan (403 plan_required)", async () => {
    const clickId = await trackedClick(server, linkId);
    const body = { click_id: clickId, customer_external_id: "scoped", event_name: "Sign up" };
    const readOnlyKey = await newKey(owner, ["links:read", "stats:read"]);
    const before = await rowCounts(server);
    const readOnly = await lead(body, readOnlyKey);
    expect([readOnly.status, readOnly.body.code, readOnly.body.required_scopes]).toEqual([403, "insufficient_scope", ["conversions:write"]]);
    const none = await call("POST", "/api/track/lead", null, body);
    expect([none.status, none.body.code]).toEqual([401, "invalid_api_key"]);
    // A signed-in session with its CSRF token is no key.
    const session = await owner.post("/api/track/lead", body);
    expect([session.status, session.body.code]).toEqual([401, "invalid_api_key"]);
    // The account moved to Pro: its key is refused as every Business feature is.
    await server.ctx.storage.db.updateTable("users").set({ plan: "pro" }).where("email", "=", "track-owner@example.com").execute();
    try {
      for (const [method, path, b] of [
        ["POST", "/api/track/lead", body],
        ["POST", "/api/track/sale", { customer_external_id: "buyer", amount: 1, currency: "EUR" }],
        ["POST", "/api/track/refund", { invoice_id: "inv-43" }],
        ["GET", "/api/customers", undefined],
        ["GET", "/api/customers/buyer", undefined],
        ["DELETE", "/api/customers/buyer", undefined],
      ] as const) {
        const r = await call(method, path, key, b);
        expect([method, path, r.status, r.body.code, r.body.required_plan]).toEqual([method, path, 403, "plan_required", "business"]);
      }
    } finally {
      await server.ctx.storage.db.updateTable("users").set({ plan: "business" }).where("email", "=", "track-owner@example.com").execute();
    }
    expect(await rowCounts(server)).toEqual(before);
    expect((await lead(body)).status).toBe(201);
  });
});
