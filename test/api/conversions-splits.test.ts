// Splits that pick their winner and conversions in the statistics (docs/conversions.md), on every engine: seeded
// visits (the daily roll-ups) and real leads and sales; variant B wins at 95 % and becomes the destination, or no
// variant does and the split goes on; each decided once, audited; the link's statistics and the account's
// analytics show leads, sales and revenue per currency, per destination and per variant, fresh.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { newClickId, recordLead, recordSale, storeTrackedClicks, trackedRow } from "../../src/conversions/index.js";
import { wilsonInterval } from "../../src/conversions/split-test.js";

const A_URL = "https://shop.example.com/a";
const B_URL = "https://shop.example.com/b";

describe.each(ENGINES)("splits that pick their winner on %s", (engine) => {
  let server: TestServer;
  let a: ApiClient;
  let ownerId: string;
  let seq = 0;
  const db = () => server.ctx.storage.db;
  const today = () => new Date().toISOString().slice(0, 10);

  async function splitLink(extra: Record<string, unknown>): Promise<{ id: string; alias: string }> {
    const r = await a.post("/api/links", {
      url: "https://shop.example.com/",
      split: [
        { url: A_URL, weight: 50 },
        { url: B_URL, weight: 50 },
      ],
      split_goal: "leads",
      ...extra,
    });
    expect(r.status).toBe(201);
    return r.body.link as { id: string; alias: string };
  }

  /** `clicks` visits per variant in today's roll-ups, as the click writer leaves them. */
  async function seedVisits(linkId: string, clicks: number[]): Promise<void> {
    await db()
      .insertInto("click_daily")
      .values({ link_id: linkId, day: today(), clicks: clicks.reduce((s, n) => s + n, 0), bots: 0 })
      .execute();
    await db()
      .insertInto("click_breakdown")
      .values(clicks.map((n, i) => ({ link_id: linkId, day: today(), dimension: "destination", value: `variant:${i + 1}`, clicks: n })))
      .execute();
  }

  /** `n` leads of distinct customers, each from a tracked click of the variant. */
  async function seedLeads(linkId: string, variant: number, n: number): Promise<string[]> {
    const now = Date.now();
    const ids = Array.from({ length: n }, () => newClickId());
    await storeTrackedClicks(
      server.ctx.storage,
      ids.map((id) => trackedRow({ id, ownerId, linkId, destination: `variant:${variant}`, country: null, userAgent: "Mozilla/5.0", referer: "", at: now })),
    );
    const customers: string[] = [];
    for (const id of ids) {
      const customer = `c-${++seq}`;
      await recordLead(db(), { id: ownerId, attribution_days: 90 }, { click_id: id, customer_external_id: customer, event_name: "Sign up" }, now);
      customers.push(customer);
    }
    return customers;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
    a = await signedInClient(server, "splits-a@example.com", "business");
    ownerId = (await db().selectFrom("users").select("id").where("email", "=", "splits-a@example.com").executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => server?.close());

  it("checks the goal fields: unknown goal, visits out of range, a malformed end, a plan without splits", async () => {
    const bad = [{ split_goal: "likes" }, { split_min_visits: 0 }, { split_min_visits: 1.5 }, { split_ends_at: "tomorrow" }];
    for (const extra of bad) {
      const r = await a.post("/api/links", {
        url: "https://shop.example.com/",
        split: [
          { url: A_URL, weight: 50 },
          { url: B_URL, weight: 50 },
        ],
        ...extra,
      });
      expect([r.status, r.body.code]).toEqual([400, "invalid_request"]);
    }
    const free = await signedInClient(server, "splits-free@example.com", "free");
    const r = await free.post("/api/links", { url: "https://shop.example.com/", split_goal: "leads" });
    expect([r.status, r.body.code]).toEqual([403, "plan_required"]);
    const link = await splitLink({ split_min_visits: 1000 });
    const got = (await a.get(`/api/links/${link.id}`)).body.link;
    expect([got.split_goal, got.split_min_visits, got.split_ends_at, got.split_decision]).toEqual(["leads", 1000, null, null]);
    // Clearing the split clears its goal.
    const cleared = (await a.patch(`/api/links/${link.id}`, { split: null })).body.link;
    expect([cleared.split, cleared.split_goal, cleared.split_min_visits]).toEqual([[], null, null]);
  });

  it("variant B wins at 95 %: it becomes the link's destination, the split closes, the decision is audited", async () => {
    const link = await splitLink({ split_min_visits: 1000 });
    await seedVisits(link.id, [1000, 1000]);
    await seedLeads(link.id, 1, 30);
    await seedLeads(link.id, 2, 50);

    // While it runs: each variant's rate and interval, and the conversions beside the clicks.
    const stats = (await a.get(`/api/links/${link.id}/stats`)).body;
    expect([stats.leads, stats.sales, stats.revenue]).toEqual([80, 0, {}]);
    expect(stats.split_test.goal).toBe("leads");
    expect(
      stats.split_test.variants.map((v: { destination: string; clicks: number; leads: number; rate: number }) => [v.destination, v.clicks, v.leads, v.rate]),
    ).toEqual([
      ["variant:1", 1000, 30, 0.03],
      ["variant:2", 1000, 50, 0.05],
    ]);
    expect(stats.split_test.variants[1].interval).toEqual(wilsonInterval(50, 1000));
    const byDestination = Object.fromEntries(
      stats.destinations.map((d: { destination: string; clicks: number; leads: number }) => [d.destination, [d.clicks, d.leads]]),
    );
    expect(byDestination).toEqual({ "variant:1": [1000, 30], "variant:2": [1000, 50] });

    // The owner's click stream (a sink whose broker is never reached: its events stay in the outbox to be read).
    const sinkId = `sink-split-${engine}`;
    const t = Date.now();
    await db()
      .insertInto("stream_sinks")
      .values({
        id: sinkId,
        owner_id: ownerId,
        kind: "redis",
        name: "S",
        url: "",
        url_enc: "unreadable",
        active: 1,
        lease_owner: null,
        last_ok_at: null,
        last_error: null,
        last_error_at: null,
        created_at: t,
        updated_at: t,
      })
      .execute();
    // Two instances' checks at once: one decision.
    const runs = await Promise.all([server.ctx.splits.runDue(), server.ctx.splits.runDue()]);
    expect(runs[0]! + runs[1]!).toBe(1);
    // The decision went to the stream once, in its transaction (docs/stream.md, Lead, sale and split events).
    const outbox = await db().selectFrom("stream_outbox").select(["event_id", "events"]).where("sink_id", "=", sinkId).execute();
    await db().deleteFrom("stream_sinks").where("id", "=", sinkId).execute();
    expect(outbox).toHaveLength(1);
    const streamed = JSON.parse(outbox[0]!.events!).x;
    expect(outbox[0]!.event_id).toBe(`link.split_decided:${link.id}:${streamed.data.decision.at}`);
    expect([streamed.type, streamed.owner_id, streamed.link[0]]).toEqual(["link.split_decided", ownerId, link.id]);
    expect(streamed.data.decision).toMatchObject({ result: "winner", goal: "leads", winner: "variant:2", url: B_URL });
    const after = (await a.get(`/api/links/${link.id}`)).body.link;
    expect(after.url).toBe(B_URL);
    expect(after.split).toEqual([]);
    expect(after.split_goal).toBeNull();
    expect(after.split_decision).toMatchObject({ result: "winner", goal: "leads", winner: "variant:2", url: B_URL });
    const audit = await db().selectFrom("admin_audit").selectAll().where("action", "=", "link.split_decided").where("target_id", "=", link.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBeNull();
    expect(JSON.parse(audit[0]!.after!).url).toBe(B_URL);
    // The redirect follows at once (the cache was told).
    const res = await fetch(`${server.url}/${link.alias}`, { redirect: "manual" });
    expect([res.status, res.headers.get("location")]).toEqual([302, B_URL]);
    expect(await server.ctx.splits.runDue()).toBe(0);
  });

  it("no variant wins at 95 %: the split goes on, 'no clear winner' is recorded once", async () => {
    const link = await splitLink({ split_ends_at: new Date(Date.now() - 1000).toISOString() });
    await seedVisits(link.id, [1000, 1000]);
    await seedLeads(link.id, 1, 30);
    await seedLeads(link.id, 2, 40);
    expect(await server.ctx.splits.runDue()).toBe(1);
    const after = (await a.get(`/api/links/${link.id}`)).body.link;
    expect(after.url).toBe("https://shop.example.com/");
    expect(after.split).toEqual([
      { url: A_URL, weight: 50 },
      { url: B_URL, weight: 50 },
    ]);
    expect(after.split_decision).toMatchObject({ result: "no_clear_winner", goal: "leads", winner: null, url: null });
    expect(await server.ctx.splits.runDue()).toBe(0);
    const audit = await db().selectFrom("admin_audit").select("summary").where("action", "=", "link.split_decided").where("target_id", "=", link.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.summary).toMatch(/^No clear winner on leads at 95 % confidence/);
    // Not due yet: a split whose visits are short of its threshold is left alone.
    const waiting = await splitLink({ split_min_visits: 5000 });
    await seedVisits(waiting.id, [4999, 6000]);
    expect(await server.ctx.splits.runDue()).toBe(0);
    expect((await a.get(`/api/links/${waiting.id}`)).body.link.split_decision).toBeNull();
  });

  it("leads, sales and revenue per currency in the link's statistics and the account's analytics, fresh and never summed across currencies", async () => {
    const link = (await a.post("/api/links", { url: "https://shop.example.com/fresh" })).body.link as { id: string };
    const [customer] = await seedLeads(link.id, 1, 1).then(async (c) => {
      // A lead of the link's url (destination null: "default").
      await db().updateTable("conversion_leads").set({ destination: null }).where("link_id", "=", link.id).execute();
      await db().updateTable("conversion_customers").set({ destination: null }).where("link_id", "=", link.id).execute();
      return c;
    });
    const before = (await a.get(`/api/links/${link.id}/stats`)).body;
    expect([before.leads, before.sales, before.revenue]).toEqual([1, 0, {}]);
    const now = Date.now();
    await recordSale(db(), ownerId, { customer_external_id: customer!, amount: 4900, currency: "EUR", invoice_id: "inv-e1" }, now);
    await recordSale(db(), ownerId, { customer_external_id: customer!, amount: 1500, currency: "usd", invoice_id: "inv-u1" }, now);
    await recordSale(db(), ownerId, { customer_external_id: customer!, amount: 100, currency: "EUR", invoice_id: "inv-e2" }, now);
    await recordSale(db(), ownerId, { customer_external_id: customer!, amount: -100, currency: "EUR", invoice_id: "inv-e2" }, now);
    const stats = (await a.get(`/api/links/${link.id}/stats`)).body;
    expect([stats.leads, stats.sales, stats.revenue]).toEqual([1, 3, { EUR: 4900, USD: 1500 }]);
    expect(stats.split_test).toBeUndefined();

    const analytics = (await a.get(`/api/analytics?link=${link.id}`)).body;
    expect([analytics.leads, analytics.sales, analytics.revenue]).toEqual([1, 3, { EUR: 4900, USD: 1500 }]);
    const all = (await a.get("/api/analytics")).body;
    expect(all.leads).toBe(1 + 30 + 50 + 30 + 40);
    expect(all.revenue).toEqual({ EUR: 4900, USD: 1500 });
    // A range that ended before: none of it.
    const old = (await a.get(`/api/links/${link.id}/stats?from=2020-01-01&to=2020-01-31`)).body;
    expect([old.leads, old.sales, old.revenue]).toEqual([0, 0, {}]);
  });
});
