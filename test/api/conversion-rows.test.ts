// Conversions per breakdown row (issue 56, docs/conversions.md Statistics) over HTTP on both engines: real tracked
// redirects (country, device, browser, OS, referrer and UTM values of each visit), leads and sales through the
// tracking API in two currencies with a refund, read back per country, device, referrer, UTM value, series point
// (a lead on either side of midnight in Paris and in UTC), destination and top link, in the link's statistics,
// account analytics and both CSV exports, exactly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { UA } from "../helpers/visit.js";
import { type TestAccount, testAccount } from "../helpers/team.js";
import { ManualClock } from "../../src/shared/clock.js";

const NOW = Date.UTC(2026, 9, 27, 10); // Tuesday 2026-10-27 10:00 UTC, 11:00 in Paris (UTC+1 since the 25th)

describe.each(ENGINES)("conversions per row on %s", (engine) => {
  let server: TestServer;
  let clock: ManualClock;
  let owner: TestAccount;
  let key: string;
  let linkId: string;
  let alias: string;

  /** A real visit of the tracked link at `at`; answers the click id sent to the destination. */
  async function visit(at: number, headers: Record<string, string>, query = ""): Promise<string> {
    clock.set(at);
    const res = await fetch(`${server.url}/${alias}${query}`, { redirect: "manual", headers });
    await res.body?.cancel();
    expect(res.status).toBe(302);
    return new URL(res.headers.get("location")!).searchParams.get("snip_id")!;
  }

  async function track(at: number, path: string, body: Record<string, unknown>): Promise<void> {
    clock.set(at);
    await server.ctx.clicks.writeBuffered();
    const res = await fetch(`${server.url}/api/track/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
  }

  const get = async (path: string) => {
    clock.set(NOW);
    await server.ctx.clicks.flush();
    const r = await owner.client.get(path);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const csv = async (path: string) => {
    clock.set(NOW);
    const res = await fetch(server.url + path, { headers: { cookie: owner.client.cookie ?? "" } });
    expect(res.status).toBe(200);
    return (await res.text()).replace(/^\uFEFF/, "").split("\r\n");
  };

  beforeAll(async () => {
    clock = new ManualClock(NOW);
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "true" } });
    owner = await testAccount(server, "rows-owner@example.com", "business");
    const k = await owner.client.post("/api/keys", { name: "shop", scopes: ["conversions:write"] });
    key = k.body.secret as string;
    const l = await owner.client.post("/api/links", { url: "https://shop.example.com/p", alias: "rows", track_conversions: true });
    expect(l.status, l.text).toBe(201);
    linkId = l.body.link.id;
    alias = "rows";
    // A: desktop in Germany from a newsletter, 23:30 in Paris on the 26th; B: an iPhone in France, direct; C: desktop in France, no conversion.
    const a = await visit(
      Date.UTC(2026, 9, 26, 22, 30),
      { "user-agent": UA.windows, referer: "https://news.example.org/story", "cf-ipcountry": "DE" },
      "?utm_source=news&utm_campaign=spring",
    );
    const b = await visit(Date.UTC(2026, 9, 27, 5), { "user-agent": UA.iphone, "cf-ipcountry": "FR" });
    await visit(Date.UTC(2026, 9, 27, 6), { "user-agent": UA.windows, "cf-ipcountry": "FR" });
    // A's lead at 23:30 UTC on the 26th: the 26th in UTC, the 27th in Paris. Its sales in two currencies on the 27th.
    await track(Date.UTC(2026, 9, 26, 23, 30), "lead", { click_id: a, customer_external_id: "cus_a", event_name: "Sign up" });
    await track(Date.UTC(2026, 9, 27, 8), "sale", { customer_external_id: "cus_a", amount: 1000, currency: "EUR", invoice_id: "in_a1" });
    await track(Date.UTC(2026, 9, 27, 9), "sale", { customer_external_id: "cus_a", amount: 500, currency: "USD", invoice_id: "in_a2" });
    await track(Date.UTC(2026, 9, 27, 6, 30), "lead", { click_id: b, customer_external_id: "cus_b", event_name: "Sign up" });
    await track(Date.UTC(2026, 9, 27, 7), "sale", { customer_external_id: "cus_b", amount: 250, currency: "EUR", invoice_id: "in_b" });
    await track(Date.UTC(2026, 9, 27, 9, 30), "refund", { invoice_id: "in_b", amount: 50 });
  });
  afterAll(async () => server?.close());

  const DE = { leads: 1, sales: 2, revenue: { EUR: 1000, USD: 500 } };
  const FR = { leads: 1, sales: 1, revenue: { EUR: 200 } };

  it("breaks a link's leads, sales and revenue down by its clicks' values and by day in the viewer's time zone", async () => {
    const s = await get(`/api/links/${linkId}/stats?range=7d&tz=Europe/Paris`);
    expect([s.range_clicks, s.leads, s.sales, s.revenue, s.leads_per_click, s.sales_per_lead]).toEqual([3, 2, 3, { EUR: 1200, USD: 500 }, 2 / 3, 1.5]);
    expect(s.countries).toEqual([
      { country: "FR", clicks: 2, visitors: 2, ...FR },
      { country: "DE", clicks: 1, visitors: 1, ...DE },
    ]);
    expect(s.devices).toEqual([
      { device: "desktop", clicks: 2, visitors: 2, ...DE },
      { device: "mobile", clicks: 1, visitors: 1, ...FR },
    ]);
    expect(s.browsers).toEqual([
      { browser: "Chrome", clicks: 2, visitors: 2, ...DE },
      { browser: "Mobile Safari", clicks: 1, visitors: 1, ...FR },
    ]);
    expect(s.os).toEqual([
      { os: "Windows", clicks: 2, visitors: 2, ...DE },
      { os: "iOS", clicks: 1, visitors: 1, ...FR },
    ]);
    expect(s.referrers).toEqual([
      { referrer: "direct", clicks: 2, visitors: 2, ...FR },
      { referrer: "news.example.org", clicks: 1, visitors: 1, ...DE },
    ]);
    expect(s.utm_sources).toEqual([{ utm_source: "news", clicks: 1, visitors: 1, ...DE }]);
    expect(s.utm_campaigns).toEqual([{ utm_campaign: "spring", clicks: 1, visitors: 1, ...DE }]);
    expect(s.utm_mediums).toEqual([]);
    // In Paris, A's click is on the 26th and every conversion on the 27th.
    const days = s.daily.map((d: Record<string, unknown>) => [d.date, d.clicks, d.leads, d.sales, d.revenue]);
    expect(days.slice(-2)).toEqual([
      ["2026-10-26", 1, 0, 0, {}],
      ["2026-10-27", 2, 2, 3, { EUR: 1200, USD: 500 }],
    ]);
    expect(s.series.slice(-2).map((p: Record<string, unknown>) => [p.label, p.leads, p.sales])).toEqual([
      ["2026-10-26", 0, 0],
      ["2026-10-27", 2, 3],
    ]);
    expect(s.destinations).toEqual([
      {
        destination: "default",
        url: "https://shop.example.com/p",
        clicks: 3,
        share: 1,
        leads: 2,
        sales: 3,
        revenue: { EUR: 1200, USD: 500 },
        leads_per_click: 2 / 3,
        sales_per_lead: 1.5,
      },
    ]);
    // In UTC the first lead falls on the 26th.
    const utc = await get(`/api/links/${linkId}/stats?range=7d&tz=UTC`);
    expect(utc.daily.slice(-2).map((d: Record<string, unknown>) => [d.date, d.clicks, d.leads, d.sales])).toEqual([
      ["2026-10-26", 1, 1, 0],
      ["2026-10-27", 2, 1, 3],
    ]);
    // Hour by hour (range=24h, in Paris): each conversion at its own hour.
    const hours = (await get(`/api/links/${linkId}/stats?range=24h&tz=Europe/Paris`)).hourly.filter(
      (h: { leads: number; sales: number }) => h.leads + h.sales > 0,
    );
    expect(hours.map((h: Record<string, unknown>) => [h.hour, h.leads, h.sales, h.revenue])).toEqual([
      ["2026-10-26T23:00:00.000Z", 1, 0, {}],
      ["2026-10-27T06:00:00.000Z", 1, 0, {}],
      ["2026-10-27T07:00:00.000Z", 0, 1, { EUR: 200 }],
      ["2026-10-27T08:00:00.000Z", 0, 1, { EUR: 1000 }],
      ["2026-10-27T09:00:00.000Z", 0, 1, { USD: 500 }],
    ]);
  });

  it("lists a value whose conversions fall in the range but whose clicks do not, after the others with 0 clicks", async () => {
    // The 27th in UTC: B and C's clicks (France); A's sales (its click, from Germany, on the 26th), B's lead and sale.
    const s = await get(`/api/links/${linkId}/stats?from=2026-10-27&to=2026-10-27&tz=UTC`);
    expect([s.range_clicks, s.leads, s.sales]).toEqual([2, 1, 3]);
    expect(s.countries).toEqual([
      { country: "FR", clicks: 2, visitors: 2, ...FR },
      { country: "DE", clicks: 0, visitors: 0, leads: 0, sales: 2, revenue: { EUR: 1000, USD: 500 } },
    ]);
    // A range with no conversion keeps the answer as it was: zero totals, no conversion fields on rows.
    const before = await get(`/api/links/${linkId}/stats?from=2026-10-20&to=2026-10-25&tz=UTC`);
    expect([before.leads, before.sales, before.revenue, "leads_per_click" in before]).toEqual([0, 0, {}, false]);
    expect(before.series[0]).toEqual({ start: "2026-10-20T00:00:00.000Z", label: "2026-10-20", clicks: 0, visitors: 0, qr: 0 });
    expect(before.destinations).toEqual([]);
  });

  it("gives the account's analytics the same rows, and each top link its figures", async () => {
    const a = await get("/api/analytics?range=7d&tz=Europe/Paris");
    expect([a.leads, a.sales, a.revenue, a.leads_per_click, a.sales_per_lead]).toEqual([2, 3, { EUR: 1200, USD: 500 }, 2 / 3, 1.5]);
    expect(a.links).toEqual([
      {
        link_id: linkId,
        alias: "rows",
        short_url: `${server.url}/rows`,
        url: "https://shop.example.com/p",
        title: null,
        clicks: 3,
        visitors: 3,
        leads: 2,
        sales: 3,
        revenue: { EUR: 1200, USD: 500 },
        leads_per_click: 2 / 3,
        sales_per_lead: 1.5,
      },
    ]);
    expect(a.countries).toEqual([
      { country: "FR", clicks: 2, visitors: 2, ...FR },
      { country: "DE", clicks: 1, visitors: 1, ...DE },
    ]);
    expect(a.utm_sources).toEqual([{ utm_source: "news", clicks: 1, visitors: 1, ...DE }]);
    expect(a.series.slice(-2).map((p: Record<string, unknown>) => [p.label, p.clicks, p.leads, p.sales, p.revenue])).toEqual([
      ["2026-10-26", 1, 0, 0, {}],
      ["2026-10-27", 2, 2, 3, { EUR: 1200, USD: 500 }],
    ]);
    // Filtered to the link: the same figures.
    const one = await get(`/api/analytics?range=7d&tz=Europe/Paris&link=${linkId}`);
    expect([one.leads, one.sales, one.revenue, one.countries]).toEqual([a.leads, a.sales, a.revenue, a.countries]);
  });

  it("exports the conversion columns after the columns the CSV always had, one revenue column per currency", async () => {
    const link = await csv(`/api/links/${linkId}/stats.csv?range=7d&tz=UTC`);
    expect(link.slice(0, 8)).toEqual([
      "date,clicks,leads,sales,revenue_EUR,revenue_USD",
      "2026-10-21,0,0,0,0,0",
      "2026-10-22,0,0,0,0,0",
      "2026-10-23,0,0,0,0,0",
      "2026-10-24,0,0,0,0,0",
      "2026-10-25,0,0,0,0,0",
      "2026-10-26,1,1,0,0,0",
      "2026-10-27,2,1,3,1200,500",
    ]);
    expect(link[8]).toBe("");
    expect(link[9]).toBe("time,country,device,os,browser,referrer,bot,destination");
    const acct = await csv(`/api/analytics.csv?range=7d&tz=UTC&link=${linkId}`);
    expect(acct.slice(0, 2)).toEqual([
      "from,to,tz,clicks,visitors,qr,previous_clicks,previous_visitors,previous_qr,change_clicks,change_visitors,change_qr,leads,sales,revenue_EUR,revenue_USD",
      "2026-10-21,2026-10-27,UTC,3,3,0,0,0,0,,,,2,3,1200,500",
    ]);
    expect(acct).toContain("day,clicks,visitors,qr,leads,sales,revenue_EUR,revenue_USD");
    expect(acct).toContain("2026-10-26,1,1,0,1,0,0,0");
    expect(acct).toContain("2026-10-27,2,2,0,1,3,1200,500");
    expect(acct).toContain("link,short_url,url,title,clicks,visitors,leads,sales,revenue_EUR,revenue_USD");
    expect(acct).toContain(`rows,${server.url}/rows,https://shop.example.com/p,,3,3,2,3,1200,500`);
    const countries = acct.indexOf("country,clicks,visitors,leads,sales,revenue_EUR,revenue_USD");
    expect(acct.slice(countries, countries + 4)).toEqual([
      "country,clicks,visitors,leads,sales,revenue_EUR,revenue_USD",
      "FR,2,2,1,1,200,0",
      "DE,1,1,1,2,1000,500",
      "",
    ]);
    expect(acct).toContain("source,clicks,visitors");
    expect(acct).toContain("utm_source,clicks,visitors,leads,sales,revenue_EUR,revenue_USD");
    expect(acct).toContain("news,1,1,1,2,1000,500");
  });
});
