// Browser test of the statistics page: real redirects with several user agents, then the chart and the device split.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, signInPage, startBrowserFixture, screenshot, type BrowserFixture, type BrowserSession } from "./browser.js";
import type { TestServer } from "../helpers/server.js";
import { UA, visit } from "../helpers/visit.js";

const available = browserAvailable();

describe.skipIf(!available)("statistics page in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const email = `stats-${Date.now()}@example.com`;
  const password = "stats-password-1";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    ({ server, browser } = fixture);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("shows the daily chart and the device split after real clicks", async () => {
    const user = await server.ctx.accounts.create({ email, password, plan: "pro", verified: true });
    const link = await server.ctx.links.create(user, { url: "https://example.com/stats-page", alias: "stats-e2e" });
    const agents = [UA.iphone, UA.iphone, UA.android, UA.windows, UA.ipad, UA.googlebot, UA.curl];
    for (const ua of agents) expect(await visit(server.url, "/stats-e2e", { "user-agent": ua, referer: "https://news.example.org/a" })).toBe(302);
    await server.ctx.clicks.flush();

    const page = browser.page;
    await signInPage(page, email, password);

    await page.goto(`/app/links/${link.id}/stats`);
    await page.getByTestId("series-chart").waitFor();
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.locator(`[data-testid="series-chart"] g.point[data-label="${today}"]`).getAttribute("data-clicks")).toBe(String(agents.length));
    expect(await page.locator('[data-testid="series-chart"] g.point').count()).toBe(30);
    const devices = (await page.getByTestId("breakdown-devices").textContent()) ?? "";
    expect(devices).toMatch(/Mobile\s*3/);
    expect(devices).toMatch(/Bot\s*2/);
    expect(devices).toMatch(/Tablet\s*1/);
    expect(devices).toMatch(/Desktop\s*1/);
    expect(await page.getByTestId("breakdown-referrers").textContent()).toContain("news.example.org");
    // No GEOIP_DB and no trusted country header here: every country is Unknown, and the page says what to set.
    expect(await page.getByTestId("countries-unknown-hint").textContent()).toContain("GEOIP_DB");
    await screenshot(page, "stats");

    // The last 24 hours, by hour: 24 bars, the current hour holding the clicks.
    await page.getByTestId("preset-24h").click();
    await page.waitForURL(/range=24h/);
    await page.locator('[data-testid="series-chart"][data-granularity="hour"]').waitFor();
    expect(await page.locator('[data-testid="series-chart"] g.point').count()).toBe(24);
    const hour = `${new Date().toISOString().slice(0, 13)}:00`;
    expect(await page.locator(`[data-testid="series-chart"] g.point[data-label="${hour}"]`).getAttribute("data-clicks")).toBe(String(agents.length));
    expect(await page.getByTestId("range-label").textContent()).toMatch(/^Last 24 hours · .* · UTC$/);
    expect(await page.getByTestId("preset-24h").getAttribute("aria-pressed")).toBe("true");
    await screenshot(page, "stats-24h");
    await page.getByTestId("preset-7d").click();
    await page.locator('[data-testid="series-chart"][data-granularity="day"]').waitFor();
    expect(await page.locator('[data-testid="series-chart"] g.point').count()).toBe(7);
  });
});
