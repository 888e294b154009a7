// Browser test of the statistics page: real redirects with several user agents, then the chart and the device split;
// regions, cities, referring pages and UTM values from visits placed by a GeoIP City database the test writes.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, signInPage, startBrowserFixture, screenshot, screenshotModes, type BrowserFixture, type BrowserSession } from "./browser.js";
import { buildMmdb } from "../helpers/mmdb-writer.js";
import type { TestServer } from "../helpers/server.js";
import { UA, visit } from "../helpers/visit.js";

const available = browserAvailable();

describe.skipIf(!available)("statistics page in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const email = `stats-${Date.now()}@example.com`;
  const password = "stats-password-1";
  const geoDir = mkdtempSync(join(tmpdir(), "snip-e2e-geo-"));

  beforeAll(async () => {
    const file = join(geoDir, "city.mmdb");
    const place = (sub: string, subName: string, city: string) => ({
      country: { iso_code: "FR" },
      subdivisions: [{ iso_code: sub, names: { en: subName } }],
      city: { names: { en: city } },
    });
    writeFileSync(
      file,
      buildMmdb(
        [
          { cidr: "203.0.113.0/25", data: place("IDF", "Île-de-France", "Paris") },
          { cidr: "203.0.113.128/25", data: place("ARA", "Auvergne-Rhône-Alpes", "Lyon") },
        ],
        { databaseType: "GeoLite2-City" },
      ),
    );
    // Visits without X-Forwarded-For come from the loopback address: no country, as before.
    fixture = await startBrowserFixture({ env: { GEOIP_DB: file, TRUST_PROXY: "true" } });
    ({ server, browser } = fixture);
  });
  afterAll(async () => {
    await fixture?.close();
    rmSync(geoDir, { recursive: true, force: true });
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

  it("shows regions, cities, referring pages and UTM values", async () => {
    const user = await server.ctx.accounts.byEmail(email);
    const link = await server.ctx.links.create(user!, { url: "https://example.com/finer", alias: "finer-e2e" });
    const hits: Array<[string, string, string]> = [
      ["/finer-e2e?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale", "203.0.113.5", "https://news.example.org/posts/42?ref=x"],
      ["/finer-e2e?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale&qr=1", "203.0.113.6", ""],
      ["/finer-e2e?utm_source=%3Cb%3Ebold%3C%2Fb%3E&utm_campaign=spring-sale", "203.0.113.200", "https://blog.example.com/review#top"],
      ["/finer-e2e", "203.0.113.7", "https://news.example.org/posts/42"],
    ];
    for (const [path, ip, referer] of hits) {
      expect(await visit(server.url, path, { "user-agent": UA.iphone, "x-forwarded-for": ip, ...(referer ? { referer } : {}) })).toBe(302);
    }
    await server.ctx.clicks.flush();
    const page = browser.page;
    await page.goto(`/app/links/${link.id}/stats`);
    await page.getByTestId("breakdown-regions").waitFor();
    expect(await page.getByTestId("breakdown-regions").textContent()).toMatch(/Île-de-France \(FR-IDF\)\s*3.*Auvergne-Rhône-Alpes \(FR-ARA\)\s*1/);
    expect(await page.getByTestId("breakdown-cities").textContent()).toMatch(/Paris \(FR-IDF\)\s*3.*Lyon \(FR-ARA\)\s*1/);
    expect(await page.getByTestId("breakdown-referrer-urls").textContent()).toMatch(/news\.example\.org\/posts\/42\s*2.*blog\.example\.com\/review\s*1/);
    expect(await page.getByTestId("breakdown-utm-campaigns").textContent()).toMatch(/spring-sale\s*3/);
    expect(await page.getByTestId("breakdown-utm-mediums").textContent()).toMatch(/email\s*2/);
    // A value with markup is text, not markup.
    expect(await page.getByTestId("breakdown-utm-sources").textContent()).toMatch(/newsletter\s*2.*<b>bold<\/b>\s*1/);
    expect(await page.locator('[data-testid="breakdown-utm-sources"] b').count()).toBe(0);
    await page.getByTestId("breakdown-regions").scrollIntoViewIfNeeded();
    await screenshotModes(page, "stats-finer");

    // The account's analytics page shows the same panels (Business and above).
    await server.ctx.storage.db.updateTable("users").set({ plan: "business" }).where("id", "=", user!.id).execute();
    await page.goto("/app/analytics?range=7d&tz=UTC");
    await page.getByTestId("breakdown-cities").waitFor();
    expect(await page.getByTestId("breakdown-cities").textContent()).toMatch(/Paris \(FR-IDF\)\s*3\s*3.*Lyon \(FR-ARA\)\s*1\s*1/);
    expect(await page.getByTestId("breakdown-utm-campaigns").textContent()).toMatch(/spring-sale\s*3\s*3/);
    await page.getByTestId("breakdown-regions").scrollIntoViewIfNeeded();
    await screenshotModes(page, "analytics-finer");
  });
});
