// The conversion store (src/conversions/) on every engine: leads, sales and refunds recorded once however many
// identical sends arrive at once (the database's unique indexes), first lead wins, unknown, foreign and expired
// click ids refused, currencies kept apart, hostile values refused with nothing written, erasure.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { countRows } from "../helpers/conversions.js";
import {
  clickIdTime,
  eraseCustomer,
  getCustomer,
  listCustomers,
  newClickId,
  recordLead,
  recordRefund,
  recordSale,
  storeTrackedClicks,
  trackedRow,
  type ConversionOwner,
} from "../../src/conversions/index.js";
import { DomainError } from "../../src/shared/errors.js";

const DAY = 86_400_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; extra: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, message: err.message, extra: err.extra };
    throw err;
  }
  throw new Error("expected a refusal");
}

describe.each(ENGINES)("conversion store on %s", (engine) => {
  let server: TestServer;
  let owner: ConversionOwner;
  let other: ConversionOwner;
  let linkId: string;
  let otherLinkId: string;
  const db = () => server.ctx.storage.db;
  const count = (table: "conversion_leads" | "conversion_sales" | "conversion_customers" | "conversion_refunds") => countRows(server, table);

  async function click(ownerId: string, link: string, at = Date.now(), destination: string | null = null): Promise<string> {
    const id = newClickId();
    await storeTrackedClicks(server.ctx.storage, [
      trackedRow({
        id,
        ownerId,
        linkId: link,
        destination,
        country: "DE",
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
        referer: "https://news.example.org/a",
        at,
      }),
    ]);
    return id;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const a = await signedInClient(server, "store-a@example.com", "business");
    const b = await signedInClient(server, "store-b@example.com", "business");
    linkId = (await createLink(a, { url: "https://shop.example.com/a" })).id;
    otherLinkId = (await createLink(b, { url: "https://shop.example.com/b" })).id;
    const ids = await db().selectFrom("users").select(["id", "email"]).execute();
    owner = { id: ids.find((u) => u.email === "store-a@example.com")!.id, attribution_days: 90 };
    other = { id: ids.find((u) => u.email === "store-b@example.com")!.id, attribution_days: 90 };
  });
  afterAll(async () => server?.close());

  it("stores a tracked click with its link, destination, country, device and referrer, named by a time prefix and 96 random bits", async () => {
    const id = await click(owner.id, linkId, 1_800_000_000_000, "variant:1");
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await db().selectFrom("tracked_clicks").selectAll().where("id", "=", id).executeTakeFirst()).toEqual({
      id,
      owner_id: owner.id,
      link_id: linkId,
      destination: "variant:1",
      country: "DE",
      device: "mobile",
      referrer_host: "news.example.org",
      browser: "WebKit",
      os: "iOS",
      utm: null,
      at: 1_800_000_000_000,
      store: null,
    });
    // Across several of the pool's draws of 256 ids: every one well formed, none twice.
    const ids = Array.from({ length: 1000 }, () => newClickId(1_800_000_000_123));
    expect([new Set(ids).size, ids.every((i) => /^[A-Za-z0-9_-]{24}$/.test(i))]).toEqual([1000, true]);
    // The first 8 characters are the time (48 bits, big-endian): the same for ids of one millisecond, the rest random.
    expect(new Set(ids.map((i) => i.slice(0, 8)))).toEqual(new Set(["AaMYXFB7"]));
    expect(new Set(ids.map((i) => i.slice(8))).size).toBe(1000);
    expect(ids.map(clickIdTime).every((t) => t === 1_800_000_000_123)).toBe(true);
    expect([clickIdTime(newClickId(0)), clickIdTime("x".repeat(22)), clickIdTime("!".repeat(24)), clickIdTime(id.slice(0, 23))]).toEqual([0, null, null, null]);
  });

  it("records a lead sent 20 times at once once, binding the customer to the click", async () => {
    const clickId = await click(owner.id, linkId, Date.now(), "rule:0");
    const before = await count("conversion_leads");
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        recordLead(db(), owner, { click_id: clickId, customer_external_id: "cus_1", event_name: "Sign up", customer_email: "ada@example.com" }, 1_000),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.lead.id)).size).toBe(1);
    expect(await count("conversion_leads")).toBe(before + 1);
    expect(results[0]!.lead).toEqual({
      id: expect.any(String),
      event_name: "Sign up",
      click_id: clickId,
      link_id: linkId,
      destination: "rule:0",
      metadata: null,
      created_at: "1970-01-01T00:00:01.000Z",
    });
    expect(results[0]!.customer).toEqual({
      id: expect.any(String),
      external_id: "cus_1",
      name: null,
      email: "ada@example.com",
      click_id: clickId,
      link_id: linkId,
      destination: "rule:0",
      created_at: "1970-01-01T00:00:01.000Z",
    });
  });

  it("keeps the first lead's click for the customer (first lead wins) and records another event of theirs", async () => {
    const first = await click(owner.id, linkId);
    const second = await click(owner.id, linkId, Date.now(), "ios");
    const a = await recordLead(db(), owner, { click_id: first, customer_external_id: "cus_first", event_name: "Sign up" }, Date.now());
    const b = await recordLead(
      db(),
      owner,
      { click_id: second, customer_external_id: "cus_first", event_name: "Trial", metadata: { plan: "ümlaut ✓" } },
      Date.now() + 1, // a later millisecond than the first: the customer's leads are listed in time order
    );
    expect(a.created && b.created).toBe(true);
    expect(b.customer.click_id).toBe(first);
    expect(b.lead.click_id).toBe(second);
    expect(b.lead.destination).toBe("ios");
    expect(b.lead.metadata).toEqual({ plan: "ümlaut ✓" });
    const again = await recordLead(db(), owner, { click_id: second, customer_external_id: "cus_first", event_name: "Sign up" }, Date.now());
    expect(again).toEqual({ ...a, created: false });
  });

  it("refuses an unknown, a foreign and an expired click id, writing nothing", async () => {
    const before = [await count("conversion_leads"), await count("conversion_customers")];
    expect((await refusal(recordLead(db(), owner, { click_id: "nope", customer_external_id: "x1", event_name: "e" }, Date.now()))).code).toBe("not_found");
    const foreign = await click(other.id, otherLinkId);
    expect((await refusal(recordLead(db(), owner, { click_id: foreign, customer_external_id: "x1", event_name: "e" }, Date.now()))).code).toBe("not_found");
    const old = await click(owner.id, linkId, Date.now() - 91 * DAY);
    const expired = await refusal(recordLead(db(), owner, { click_id: old, customer_external_id: "x1", event_name: "e" }, Date.now()));
    expect(expired).toEqual({
      code: "attribution_expired",
      message: "the click is older than the attribution window (90 days)",
      extra: { attribution_days: 90 },
    });
    // Inside a shorter window of the account's: refused too; inside the window: taken.
    const recent = await click(owner.id, linkId, Date.now() - 10 * DAY);
    expect(
      (await refusal(recordLead(db(), { ...owner, attribution_days: 7 }, { click_id: recent, customer_external_id: "x1", event_name: "e" }, Date.now()))).code,
    ).toBe("attribution_expired");
    expect([await count("conversion_leads"), await count("conversion_customers")]).toEqual(before);
    expect((await recordLead(db(), owner, { click_id: recent, customer_external_id: "x1", event_name: "e" }, Date.now())).created).toBe(true);
  });

  it("refuses hostile lead input with a field error and nothing written", async () => {
    const clickId = await click(owner.id, linkId);
    const before = await count("conversion_customers");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ customer_external_id: "   " }, "customer_external_id"],
      [{ customer_external_id: "a\u0000b" }, "customer_external_id"],
      [{ event_name: "x".repeat(101) }, "event_name"],
      [{ customer_name: "\ud800" }, "customer_name"],
      [{ metadata: { blob: "x".repeat(5000) } }, "metadata"],
    ];
    for (const [patch, field] of cases) {
      const r = await refusal(recordLead(db(), owner, { click_id: clickId, customer_external_id: "h1", event_name: "e", ...patch } as never, Date.now()));
      expect(r.code, field).toBe("invalid_request");
      expect(r.message.startsWith(`${field}:`), r.message).toBe(true);
    }
    expect(await count("conversion_customers")).toBe(before);
  });

  it("records a sale sent 20 times at once with one invoice_id once, attributed to the customer's click", async () => {
    const clickId = await click(owner.id, linkId, Date.now(), "variant:0");
    await recordLead(db(), owner, { click_id: clickId, customer_external_id: "buyer", event_name: "Sign up" }, Date.now());
    const before = await count("conversion_sales");
    const results = await Promise.all(
      Array.from({ length: 20 }, () => recordSale(db(), owner.id, { customer_external_id: "buyer", amount: 4999, currency: "eur", invoice_id: "in_1" }, 2_000)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await count("conversion_sales")).toBe(before + 1);
    expect(results[0]!.sale).toEqual({
      id: expect.any(String),
      event_name: "Purchase",
      amount: 4999,
      currency: "EUR",
      refunded: 0,
      invoice_id: "in_1",
      payment_processor: "custom",
      click_id: clickId,
      link_id: linkId,
      destination: "variant:0",
      metadata: null,
      created_at: "1970-01-01T00:00:02.000Z",
    });
    // Without an invoice_id every call is a sale of its own; another currency stays its own sale.
    await recordSale(db(), owner.id, { customer_external_id: "buyer", amount: 100, currency: "USD" }, 3_000);
    await recordSale(db(), owner.id, { customer_external_id: "buyer", amount: 100, currency: "USD" }, 3_000);
    const detail = await getCustomer(db(), owner.id, "buyer");
    expect(detail.sales.map((s) => [s.amount, s.currency])).toEqual([
      [4999, "EUR"],
      [100, "USD"],
      [100, "USD"],
    ]);
  });

  it("refuses bad sales: unknown customer, bad currency, negative without invoice, fractions, too large", async () => {
    const clickId = await click(owner.id, linkId);
    await recordLead(db(), owner, { click_id: clickId, customer_external_id: "bad-sales", event_name: "Sign up" }, Date.now());
    const before = await count("conversion_sales");
    expect((await refusal(recordSale(db(), owner.id, { customer_external_id: "nobody", amount: 1, currency: "EUR" }, 1))).code).toBe("not_found");
    expect((await refusal(recordSale(db(), other.id, { customer_external_id: "bad-sales", amount: 1, currency: "EUR" }, 1))).code).toBe("not_found");
    for (const [body, field] of [
      [{ amount: 1, currency: "EURO" }, "currency"],
      [{ amount: 1, currency: "XQQ" }, "currency"],
      [{ amount: 1, currency: "€" }, "currency"],
      [{ amount: -5, currency: "EUR" }, "invoice_id"],
      [{ amount: 1.5, currency: "EUR" }, "amount"],
      [{ amount: 1e18, currency: "EUR" }, "amount"],
      [{ amount: Number.NaN, currency: "EUR" }, "amount"],
    ] as const) {
      const r = await refusal(recordSale(db(), owner.id, { customer_external_id: "bad-sales", ...body }, 1));
      expect(r.code, JSON.stringify(body)).toBe("invalid_request");
      expect(r.message.startsWith(`${field}:`), r.message).toBe(true);
    }
    expect(await count("conversion_sales")).toBe(before);
  });

  it("records refunds against a sale, never more than was paid, 20 at once", async () => {
    const clickId = await click(owner.id, linkId);
    await recordLead(db(), owner, { click_id: clickId, customer_external_id: "refunder", event_name: "Sign up" }, Date.now());
    await recordSale(db(), owner.id, { customer_external_id: "refunder", amount: 1000, currency: "GBP", invoice_id: "in_r" }, 1);
    const part = await recordRefund(db(), owner.id, { invoice_id: "in_r", amount: 300 }, 5);
    expect(part.refund).toEqual({ id: expect.any(String), amount: 300, created_at: "1970-01-01T00:00:00.005Z" });
    expect(part.sale.refunded).toBe(300);
    // A negative sale amount is a refund of that invoice, in the sale's currency only.
    expect((await refusal(recordSale(db(), owner.id, { customer_external_id: "refunder", amount: -100, currency: "EUR", invoice_id: "in_r" }, 6))).code).toBe(
      "invalid_request",
    );
    const neg = await recordSale(db(), owner.id, { customer_external_id: "refunder", amount: -100, currency: "GBP", invoice_id: "in_r" }, 6);
    expect([neg.created, neg.refund?.amount, neg.sale.refunded]).toEqual([false, 100, 400]);
    const over = await refusal(recordRefund(db(), owner.id, { invoice_id: "in_r", amount: 601 }, 7));
    expect(over).toEqual({ code: "conflict", message: "only 600 of the sale is left to refund", extra: { refundable: 600 } });
    // Twenty "refund the rest" at once: one takes the 600, the others find nothing left.
    const rest = await Promise.all(Array.from({ length: 20 }, () => recordRefund(db(), owner.id, { invoice_id: "in_r" }, 8)));
    expect(rest.filter((r) => r.refund !== null).map((r) => r.refund!.amount)).toEqual([600]);
    const rows = await db()
      .selectFrom("conversion_refunds")
      .innerJoin("conversion_sales", "conversion_sales.id", "conversion_refunds.sale_id")
      .select("conversion_refunds.amount")
      .where("conversion_sales.invoice_id", "=", "in_r")
      .orderBy("conversion_refunds.created_at")
      .execute();
    expect(rows.map((r) => r.amount)).toEqual([300, 100, 600]);
    expect((await refusal(recordRefund(db(), owner.id, { invoice_id: "in_unknown" }, 9))).code).toBe("not_found");
    expect((await refusal(recordRefund(db(), other.id, { invoice_id: "in_r" }, 9))).code).toBe("not_found");
    expect((await refusal(recordRefund(db(), owner.id, { invoice_id: "in_r", amount: 0 }, 9))).code).toBe("invalid_request");
  });

  it("lists customers newest first in pages and shows one with its click, link, leads and sales", async () => {
    const mine = await listCustomers(db(), owner.id, { limit: 2 });
    expect(mine.customers).toHaveLength(2);
    expect(mine.next_cursor).not.toBeNull();
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listCustomers(db(), owner.id, { limit: 2, cursor });
      all.push(...page.customers.map((c) => c.external_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const stored = await db().selectFrom("conversion_customers").select("external_id").where("owner_id", "=", owner.id).execute();
    expect(all.sort()).toEqual(stored.map((s) => s.external_id).sort());
    expect((await listCustomers(db(), other.id, {})).customers).toEqual([]);
    expect((await refusal(listCustomers(db(), owner.id, { cursor: "garbage" }))).code).toBe("invalid_request");
    const d = await getCustomer(db(), owner.id, "cus_first");
    expect(d.click).toEqual({
      id: d.click_id,
      link_id: linkId,
      destination: null,
      country: "DE",
      device: "mobile",
      referrer_host: "news.example.org",
      at: expect.stringMatching(ISO),
    });
    expect(d.link).toEqual({ id: linkId, alias: expect.any(String), domain: null, url: "https://shop.example.com/a" });
    expect(d.leads.map((l) => l.event_name)).toEqual(["Sign up", "Trial"]);
    expect((await refusal(getCustomer(db(), other.id, "cus_first"))).code).toBe("not_found");
  });

  it("erases a customer: the person and their conversions' personal fields go, the counts stay", async () => {
    const clickId = await click(owner.id, linkId);
    await recordLead(
      db(),
      owner,
      {
        click_id: clickId,
        customer_external_id: "forget-me",
        event_name: "Sign up",
        customer_name: "Grace",
        customer_email: "g@example.com",
        metadata: { phone: "123" },
      },
      1,
    );
    await recordSale(db(), owner.id, { customer_external_id: "forget-me", amount: 50, currency: "JPY", invoice_id: "in_f", metadata: { address: "x" } }, 2);
    expect((await refusal(eraseCustomer(db(), other.id, "forget-me"))).code).toBe("not_found");
    await eraseCustomer(db(), owner.id, "forget-me");
    expect((await refusal(getCustomer(db(), owner.id, "forget-me"))).code).toBe("not_found");
    expect(await db().selectFrom("conversion_customers").select("id").where("email", "=", "g@example.com").execute()).toEqual([]);
    const lead = await db()
      .selectFrom("conversion_leads")
      .select(["customer_id", "metadata", "link_id"])
      .where("click_id", "=", clickId)
      .executeTakeFirstOrThrow();
    expect(lead).toEqual({ customer_id: null, metadata: null, link_id: linkId });
    const sale = await db()
      .selectFrom("conversion_sales")
      .select(["customer_id", "metadata", "amount", "currency"])
      .where("invoice_id", "=", "in_f")
      .executeTakeFirstOrThrow();
    expect(sale).toEqual({ customer_id: null, metadata: null, amount: 50, currency: "JPY" });
    expect((await refusal(eraseCustomer(db(), owner.id, "forget-me"))).code).toBe("not_found");
    // The same external id later is a new customer.
    const again = await recordLead(db(), owner, { click_id: clickId, customer_external_id: "forget-me", event_name: "Sign up" }, 3);
    expect([again.created, again.customer.name, again.customer.email]).toEqual([true, null, null]);
  });
});
