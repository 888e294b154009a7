// Conversions per row in the dashboard (issue 56), in Chromium on SQLite and (with TEST_DATABASE_URL) PostgreSQL:
// real tracked visits (country, device, referrer, UTM values) and leads and sales through the tracking API in two
// currencies show as Leads, Sales and Revenue columns of the statistics page's breakdowns and of the Analytics
// page's top links and breakdowns, with exact numbers, each currency apart; the destinations table shows leads per
// click and sales per lead; at 390 px the page never scrolls sideways. The funnel shows for a tracking link and for
// a link with imported conversions (Dub's), not for a Business link that tracks nothing. Screenshots at 1280 and
// 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { SHOTS, SHOTS_DIR, browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ENGINES } from "../helpers/engines.js";
import { UA } from "../helpers/visit.js";

const available = browserAvailable();
const PASSWORD = "conversion-columns-1";

describe.skipIf(!available).each(ENGINES)("conversion columns in the dashboard (%s)", (engine) => {
  let f: BrowserFixture;
  let page: Page;
  let key = "";
  let tracked = "";
  let untracked = "";
  let imported = "";
  const alias = `cols-${engine}`;

  /** A real visit of the tracked link; answers the click id sent to the destination. */
  async function visit(headers: Record<string, string>, query = ""): Promise<string> {
    const res = await fetch(`${f.server.url}/${alias}${query}`, { redirect: "manual", headers });
    await res.body?.cancel();
    expect(res.status).toBe(302);
    return new URL(res.headers.get("location")!).searchParams.get("snip_id")!;
  }
  async function track(path: string, body: Record<string, unknown>): Promise<void> {
    await f.server.ctx.clicks.writeBuffered();
    const res = await fetch(`${f.server.url}/api/track/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
  }
  /** A breakdown row's leads, sales and revenue as shown. */
  async function cells(row: Locator): Promise<[string | null, string | null, string | null]> {
    return [
      await row.getByTestId("row-leads").textContent(),
      await row.getByTestId("row-sales").textContent(),
      await row.getByTestId("row-revenue").innerText(),
    ];
  }
  /** At 390 px the page does not scroll sideways (the columns scroll inside their card); `card` is kept as a close-up. */
  async function noSidewaysScroll(card: Locator, name: string): Promise<void> {
    await page.setViewportSize({ width: 390, height: 900 });
    const [scroll, width] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    expect(scroll).toBeLessThanOrEqual(width);
    if (SHOTS) await card.screenshot({ path: `${SHOTS_DIR}/${name}-390-card.png` });
    await page.setViewportSize({ width: 1280, height: 900 });
    // At 1280 px the columns fit their card: nothing hidden behind a scroll.
    const [inner, shown] = await card.locator(".hbar-scroll").evaluate((e) => [e.scrollWidth, e.clientWidth]);
    expect(inner).toBeLessThanOrEqual(shown!);
  }

  beforeAll(async () => {
    f = await startBrowserFixture({ engine, env: { TRUST_PROXY: "true" } });
    page = f.browser.page;
    const email = `cols-${engine}@example.com`;
    const owner = await f.server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    key = (await f.server.ctx.apiKeys.create(owner, { name: "Shop server", scopes: ["conversions:write"] })).secret;
    tracked = (
      await f.server.ctx.links.create(owner, {
        url: "https://shop.example.com/p",
        alias,
        track_conversions: true,
        rules: [{ if: { country: ["DE"] }, url: "https://shop.example.de/p" }],
      })
    ).id;
    untracked = (await f.server.ctx.links.create(owner, { url: "https://example.com/plain", alias: `plain-${engine}` })).id;
    imported = (await f.server.ctx.links.create(owner, { url: "https://example.com/from-dub", alias: `dub-${engine}` })).id;
    await f.server.ctx.storage.db.insertInto("link_imported_conversions").values({ link_id: imported, leads: 4, sales: 2, revenue: '{"USD":30000}' }).execute();
    // A: desktop in Germany from a newsletter (the rule's destination); B: an iPhone in France; C: desktop in France, no conversion.
    const a = await visit({ "user-agent": UA.windows, referer: "https://news.example.org/story", "cf-ipcountry": "DE" }, "?utm_source=news");
    const b = await visit({ "user-agent": UA.iphone, "cf-ipcountry": "FR" });
    await visit({ "user-agent": UA.windows, "cf-ipcountry": "FR" });
    await track("lead", { click_id: a, customer_external_id: "cus_a", event_name: "Sign up" });
    await track("sale", { customer_external_id: "cus_a", amount: 1000, currency: "EUR", invoice_id: "in_a1" });
    await track("sale", { customer_external_id: "cus_a", amount: 500, currency: "USD", invoice_id: "in_a2" });
    await track("lead", { click_id: b, customer_external_id: "cus_b", event_name: "Sign up" });
    await track("sale", { customer_external_id: "cus_b", amount: 250, currency: "EUR", invoice_id: "in_b" });
    await f.server.ctx.clicks.flush();
    await signInPage(page, email, PASSWORD);
  });
  afterAll(async () => f?.close());

  it("the statistics page shows leads, sales and revenue per country, device, referrer and UTM source, and the rates per destination", async () => {
    await page.goto(`/app/links/${tracked}/stats?range=7d`);
    const countries = page.getByTestId("breakdown-countries");
    await countries.getByTestId("conversion-columns").waitFor();
    expect(await cells(countries.locator('[data-label="Germany (DE)"]'))).toEqual(["1", "2", "€10.00\n$5.00"]);
    expect(await cells(countries.locator('[data-label="France (FR)"]'))).toEqual(["1", "1", "€2.50"]);
    expect(await countries.locator('[data-label="France (FR)"]').getAttribute("data-clicks")).toBe("2");
    const devices = page.getByTestId("breakdown-devices");
    expect(await cells(devices.locator('[data-label="Desktop"]'))).toEqual(["1", "2", "€10.00\n$5.00"]);
    expect(await cells(devices.locator('[data-label="Mobile"]'))).toEqual(["1", "1", "€2.50"]);
    expect(await cells(page.getByTestId("breakdown-referrers").locator('[data-label="news.example.org"]'))).toEqual(["1", "2", "€10.00\n$5.00"]);
    expect(await cells(page.getByTestId("breakdown-utm-sources").locator('[data-label="news"]'))).toEqual(["1", "2", "€10.00\n$5.00"]);
    // Regions have no conversion figures: no columns there.
    expect(await page.getByTestId("breakdown-regions").getByTestId("conversion-columns").count()).toBe(0);

    // The funnel, and where the clicks went with what they led to.
    expect(await page.getByTestId("funnel-clicks").getAttribute("data-value")).toBe("3");
    expect(await page.getByTestId("funnel-leads").getAttribute("data-value")).toBe("2");
    expect(await page.getByTestId("funnel-sales").getAttribute("data-value")).toBe("3");
    // Three sales of two leads: 150 %, not 1.5 %.
    expect(await page.getByTestId("funnel-sales").locator(".funnel-rate").textContent()).toBe("150% of leads");
    expect(await page.getByTestId("funnel-revenue").innerText()).toBe("€12.50\n$5.00");
    expect(await page.getByTestId("funnel-imported").count()).toBe(0);
    const rates = async (d: string) => [
      await page.getByTestId(`conversion-leads-${d}`).textContent(),
      await page.getByTestId(`conversion-sales-${d}`).textContent(),
      await page.getByTestId(`conversion-lpc-${d}`).textContent(),
      await page.getByTestId(`conversion-spl-${d}`).textContent(),
    ];
    expect(await rates("rule:1")).toEqual(["1", "2", "100%", "200%"]);
    expect(await rates("default")).toEqual(["1", "1", "50%", "100%"]);
    await noSidewaysScroll(countries, "conv-columns-stats");
    await screenshotModes(page, "conv-columns-stats");
  });

  it("the Analytics page shows each top link's and each country's leads, sales and revenue, currencies apart", async () => {
    await page.goto("/app/analytics?range=7d");
    const top = page.getByTestId("top-links");
    await top.getByTestId("conversion-columns").waitFor();
    expect(await cells(top.locator(`[data-alias="${alias}"]`))).toEqual(["2", "3", "€12.50\n$5.00"]);
    const countries = page.getByTestId("breakdown-countries");
    expect(await cells(countries.locator('[data-label="Germany (DE)"]'))).toEqual(["1", "2", "€10.00\n$5.00"]);
    expect(await cells(countries.locator('[data-label="France (FR)"]'))).toEqual(["1", "1", "€2.50"]);
    await noSidewaysScroll(top, "conv-columns-analytics");
    await screenshotModes(page, "conv-columns-analytics");
  });

  it("the funnel shows on a tracking link's page, not on a Business link's that tracks nothing; imported conversions show as Dub's", async () => {
    await page.goto(`/app/links/${tracked}`);
    await page.getByTestId("conversion-funnel").waitFor();
    expect(await page.getByTestId("funnel-sales").getAttribute("data-value")).toBe("3");

    await page.goto(`/app/links/${untracked}`);
    await page.getByTestId("link-page-visitors").filter({ hasText: "0" }).waitFor();
    expect(await page.getByTestId("conversion-funnel").count()).toBe(0);
    await page.goto(`/app/links/${untracked}/stats`);
    await page.getByTestId("stats-body").waitFor();
    expect(await page.getByTestId("conversion-funnel").count()).toBe(0);

    await page.goto(`/app/links/${imported}`);
    await page.getByTestId("funnel-imported").waitFor();
    expect(await page.getByTestId("funnel-imported").textContent()).toBe("Imported from Dub: 4 leads, 2 sales, $300.00");
    expect(await page.getByTestId("funnel-leads").getAttribute("data-value")).toBe("0");
    await screenshotModes(page, "conv-columns-imported");
  });
});
