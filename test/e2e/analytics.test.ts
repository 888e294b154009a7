// Browser test of issue 29's pages after real visits at set times (an injected clock): a link's statistics with the
// named ranges, the time-zone switch, totals with their change and QR scans apart; the account Analytics page with
// top links, filters, a member's owner switch and the plan gate; nothing wider than a 390 px phone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, networkQuiet, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ENGINES } from "../helpers/engines.js";
import { UA, visit } from "../helpers/visit.js";
import { ManualClock } from "../../src/shared/clock.js";

const available = browserAvailable();
const PASSWORD = "analytics-password-1";
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Today (UTC) at midnight: every visit is set relative to it. */
const D = Math.floor(Date.now() / DAY) * DAY;
const at = (daysAgo: number, hour: number, minute = 0) => D - daysAgo * DAY + hour * HOUR + minute * 60_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const point = (page: Page, label: string) => page.locator(`[data-testid="series-chart"] g.point[data-label="${label}"]`);
const pointValues = async (page: Page, label: string) => {
  const p = point(page, label);
  return { clicks: await p.getAttribute("data-clicks"), visitors: await p.getAttribute("data-visitors"), qr: await p.getAttribute("data-qr") };
};
const text = async (page: Page, testId: string) => ((await page.getByTestId(testId).textContent()) ?? "").trim();

async function noSidewaysScroll(page: Page, path: string, ready: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(path);
  await page.getByTestId(ready).waitFor();
  await networkQuiet(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe.skipIf(!available).each(ENGINES)("statistics and analytics pages in the browser (%s)", (engine) => {
  let fixture: BrowserFixture;
  const clock = new ManualClock(at(0, 12));
  const stamp = `${engine}-${Date.now()}`;
  const email = (who: string) => `${who}-${stamp}@example.com`;
  let statsLinkId = "";
  let ownerId = "";
  const alias = { stats: `st-${stamp}`, top: `an-top-${stamp}`, two: `an-two-${stamp}` };

  beforeAll(async () => {
    fixture = await startBrowserFixture({ engine, clock });
    const ctx = fixture.server.ctx;
    // Accounts and links from before their first visit (all time starts there).
    clock.set(at(401, 0));
    const pro = await ctx.accounts.create({ email: email("pro"), password: PASSWORD, plan: "pro", verified: true });
    const owner = await ctx.accounts.create({ email: email("owner"), password: PASSWORD, plan: "business", verified: true, name: "Bea Business" });
    const member = await ctx.accounts.create({ email: email("member"), password: PASSWORD, plan: "free", verified: true });
    ownerId = owner.id;
    await ctx.storage.db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: clock.now() }).execute();
    statsLinkId = (await ctx.links.create(pro, { url: "https://example.com/stats", alias: alias.stats })).id;
    await ctx.links.create(owner, { url: "https://example.com/top", alias: alias.top, title: "Spring campaign", tags: ["campaign"] });
    await ctx.links.create(owner, { url: "https://example.com/two", alias: alias.two });

    const go = async (path: string, ua: string) => expect(await visit(fixture.server.url, path, { "user-agent": ua })).toBe(302);
    // Over a year ago: all time then has monthly points.
    clock.set(at(400, 12));
    await go(`/${alias.stats}`, UA.windows);
    // The previous 7 days: ten days ago at noon UTC.
    clock.set(at(10, 12));
    await go(`/${alias.stats}`, UA.iphone);
    await go(`/${alias.stats}`, UA.iphone);
    await go(`/${alias.top}`, UA.iphone);
    // Yesterday 23:30 UTC: today 08:30 in Tokyo.
    clock.set(at(1, 23, 30));
    await go(`/${alias.stats}`, UA.iphone);
    await go(`/${alias.stats}`, UA.iphone);
    await go(`/${alias.stats}?qr=1`, UA.android);
    await go(`/${alias.top}`, UA.iphone);
    await go(`/${alias.top}`, UA.iphone);
    await go(`/${alias.top}`, UA.windows);
    await go(`/${alias.two}?qr=1`, UA.android);
    clock.set(at(0, 12));
    await ctx.clicks.flush();
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it("shows a link's totals with their change, QR scans apart, and moves the points with the time zone", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email("pro"), PASSWORD);
    await page.goto(`/app/links/${statsLinkId}/stats?range=7d`);
    await point(page, ymd(at(1, 0))).waitFor();
    // The browser runs in UTC: the page asks in its zone.
    expect(await page.getByTestId("tz-select").inputValue()).toBe("UTC");
    expect(await page.getByTestId("preset-7d").getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator('[data-testid="series-chart"] g.point').count()).toBe(7);
    expect(await pointValues(page, ymd(at(1, 0)))).toEqual({ clicks: "3", visitors: "2", qr: "1" });
    expect(await pointValues(page, ymd(at(0, 0)))).toEqual({ clicks: "0", visitors: "0", qr: "0" });
    expect([await text(page, "range-clicks"), await text(page, "range-visitors"), await text(page, "range-qr")]).toEqual(["3", "2", "1"]);
    expect(await text(page, "change-clicks")).toBe("+50% vs previous 7 days");
    expect(await text(page, "change-visitors")).toBe("+100% vs previous 7 days");
    expect(await text(page, "change-qr")).toBe("new: none in the previous 7 days");
    expect(await page.getByTestId("change-clicks").locator(".change-up").count()).toBe(1);
    expect(await page.getByTestId("source-link").getAttribute("data-clicks")).toBe("2");
    expect(await page.getByTestId("source-qr").getAttribute("data-clicks")).toBe("1");
    const mobile = page.getByTestId("breakdown-devices").locator('li[data-label="Mobile"]');
    expect([await mobile.getAttribute("data-clicks"), await mobile.getAttribute("data-visitors")]).toEqual(["3", "2"]);
    expect(await page.getByTestId("chart-legend").textContent()).toContain("Visitors");
    expect(await page.getByTestId("stats-csv").getAttribute("href")).toBe(`/api/links/${statsLinkId}/stats.csv?range=7d&tz=UTC`);

    // Tokyo is 9 hours ahead: yesterday 23:30 UTC is today there.
    await page.getByTestId("tz-select").selectOption("Asia/Tokyo");
    await page.waitForURL(/tz=Asia%2FTokyo/);
    await expect.poll(() => point(page, ymd(at(0, 0))).getAttribute("data-clicks")).toBe("3");
    expect(await pointValues(page, ymd(at(1, 0)))).toEqual({ clicks: "0", visitors: "0", qr: "0" });
    expect(await text(page, "range-label")).toContain("Asia/Tokyo");
    expect(await text(page, "change-clicks")).toBe("+50% vs previous 7 days");

    // The last 24 hours by hour, in Tokyo then in UTC again.
    await page.getByTestId("preset-24h").click();
    await expect.poll(() => point(page, `${ymd(at(0, 0))}T08:00`).getAttribute("data-clicks")).toBe("3");
    expect(await page.locator('[data-testid="series-chart"] g.point').count()).toBe(24);
    expect(await page.getByTestId("series-chart").getAttribute("data-granularity")).toBe("hour");
    expect(await text(page, "change-clicks")).toBe("new: none in the previous 24 hours");
    await page.getByTestId("tz-select").selectOption("UTC");
    await expect.poll(() => point(page, `${ymd(at(1, 0))}T23:00`).getAttribute("data-clicks")).toBe("3");
    // Any zone the browser knows, by search: New York is 5 hours behind UTC in winter, 4 in summer.
    await page.getByTestId("tz-select").selectOption("__other__");
    await page.getByTestId("tz-search").fill("america/new_york");
    await page.waitForURL(/tz=America%2FNew_York/);
    const nyHour = new Intl.DateTimeFormat("en-CA", {
      timeZone: "America/New_York",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      hourCycle: "h23",
    }).formatToParts(at(1, 23, 30));
    const part = (t: string) => nyHour.find((p) => p.type === t)?.value;
    await expect.poll(() => point(page, `${part("year")}-${part("month")}-${part("day")}T${part("hour")}:00`).getAttribute("data-clicks")).toBe("3");
    expect(await page.getByTestId("tz-select").inputValue()).toBe("America/New_York");
    await page.getByTestId("tz-select").selectOption("UTC");

    // Days up to 366 of them (12 months), months beyond (all time, since the first click 400 days ago).
    await page.getByTestId("preset-12mo").click();
    await expect.poll(() => page.getByTestId("preset-12mo").getAttribute("aria-pressed")).toBe("true");
    await expect.poll(() => point(page, ymd(at(1, 0))).getAttribute("data-clicks")).toBe("3");
    expect(await page.getByTestId("series-chart").getAttribute("data-granularity")).toBe("day");
    await page.getByTestId("preset-all").click();
    await expect.poll(() => page.getByTestId("series-chart").getAttribute("data-granularity")).toBe("month");
    expect(await point(page, ymd(at(400, 0)).slice(0, 7)).getAttribute("data-clicks")).toBe("1");
    expect(await page.getByTestId("change-clicks").count()).toBe(0);
    for (const name of ["30d", "90d", "mtd", "lastmonth"]) {
      await page.getByTestId(`preset-${name}`).click();
      await expect.poll(() => page.getByTestId(`preset-${name}`).getAttribute("aria-pressed")).toBe("true");
      await page.getByTestId("range-clicks").waitFor();
      expect(await page.getByTestId("stats-error").count(), name).toBe(0);
    }
    await page.goto(`/app/links/${statsLinkId}/stats?range=7d&tz=UTC`);
    await point(page, ymd(at(1, 0))).waitFor();
    await screenshotModes(page, "issue29-stats");
    await noSidewaysScroll(page, `/app/links/${statsLinkId}/stats?range=7d&tz=Asia/Tokyo`, "series-chart");
    await noSidewaysScroll(page, `/app/links/${statsLinkId}/stats?range=24h&tz=UTC`, "series-chart");
  }, 120_000);

  it("shows the Pro plan the Business gate on Analytics", async () => {
    const page = fixture.browser.page;
    await page.goto("/app/analytics");
    expect(await text(page, "analytics-gate")).toContain("Business");
    await screenshotModes(page, "issue29-analytics-gate");
    expect(await page.getByTestId("nav-analytics").getByTestId("plan-mark-account_analytics").textContent()).toBe("Business");
    expect(await page.getByTestId("analytics-csv").count()).toBe(0);
  });

  it("shows a Business owner's analytics: totals, top links, a tag and a link filter, CSV of what is shown", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, email("owner"), PASSWORD);
    await page.getByTestId("nav-analytics").click();
    await page.waitForURL(/\/app\/analytics/);
    await page.getByTestId("preset-7d").click();
    await expect.poll(() => text(page, "range-clicks")).toBe("4");
    expect([await text(page, "range-visitors"), await text(page, "range-qr")]).toEqual(["3", "1"]);
    expect(await text(page, "change-clicks")).toBe("+300% vs previous 7 days");
    expect(await text(page, "change-visitors")).toBe("+200% vs previous 7 days");
    const rows = page.getByTestId("top-link");
    expect(
      await rows.evaluateAll((els) => els.map((e) => [e.getAttribute("data-alias"), e.getAttribute("data-clicks"), e.getAttribute("data-visitors")])),
    ).toEqual([
      [alias.top, "3", "2"],
      [alias.two, "1", "1"],
    ]);
    expect(await pointValues(page, ymd(at(1, 0)))).toEqual({ clicks: "4", visitors: "3", qr: "1" });
    expect(await page.getByTestId("source-qr").getAttribute("data-clicks")).toBe("1");
    expect(await page.getByTestId("analytics-csv").getAttribute("href")).toBe("/api/analytics.csv?range=7d&tz=UTC");
    const csv = await page.evaluate(async () => {
      const r = await fetch("/api/analytics.csv?range=7d&tz=UTC", { credentials: "same-origin" });
      return { status: r.status, type: r.headers.get("content-type"), body: await r.text() };
    });
    expect([csv.status, csv.type]).toEqual([200, "text/csv; charset=utf-8"]);
    expect(csv.body).toContain(alias.top);
    await screenshotModes(page, "issue29-analytics");

    // Only the tag "campaign": the top link alone.
    await page.getByTestId("analytics-tag").selectOption({ label: "campaign" });
    await expect.poll(() => text(page, "range-clicks")).toBe("3");
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-alias")))).toEqual([alias.top]);
    expect(await page.getByTestId("analytics-csv").getAttribute("href")).toMatch(/^\/api\/analytics\.csv\?range=7d&tz=UTC&tag=[^&]+$/);
    await page.getByTestId("analytics-clear").click();
    await expect.poll(() => text(page, "range-clicks")).toBe("4");

    // One link, found by its alias: its QR scan alone.
    await page.getByTestId("analytics-link").fill(alias.two);
    await page.getByTestId("analytics-link-chosen").waitFor();
    await expect.poll(() => text(page, "range-clicks")).toBe("1");
    expect(await text(page, "range-qr")).toBe("1");
    expect(await page.getByTestId("analytics-csv").getAttribute("href")).toMatch(/&link=[^&]+$/);
    await page.getByTestId("analytics-link-clear").click();
    await expect.poll(() => text(page, "range-clicks")).toBe("4");

    // An empty period says so; the alias opens that link's statistics.
    await page.getByTestId("preset-24h").click();
    await expect.poll(() => text(page, "range-clicks")).toBe("4");
    await page.getByTestId("preset-mtd").click();
    await page.getByTestId("range-clicks").waitFor();
    await page.goto(`/app/analytics?from=${ymd(at(40, 0))}&to=${ymd(at(35, 0))}&tz=UTC`);
    await page.getByTestId("analytics-empty").waitFor();
    expect(await text(page, "analytics-empty")).toContain("No clicks in this period");
    await page.goto("/app/analytics?range=7d&tz=UTC");
    await page.getByTestId("analytics-live").click();
    await page.waitForURL(/\/app\/live$/);
    await page.getByTestId("live-status").waitFor();
    await page.goto("/app/analytics?range=7d&tz=UTC");
    await page.getByTestId("top-link-stats").first().click();
    await page.waitForURL(/\/app\/links\/[^/]+\/stats$/);
    await page.getByTestId("series-chart").waitFor();
    await noSidewaysScroll(page, "/app/analytics?range=30d&tz=UTC", "top-links");
  }, 120_000);

  it("lets a team member switch to the owner's analytics, on the owner's plan", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, email("member"), PASSWORD);
    await page.goto("/app/analytics?range=7d&tz=UTC");
    await page.getByTestId("analytics-gate").waitFor();
    await page.getByTestId("analytics-owner").selectOption(ownerId);
    await expect.poll(() => text(page, "range-clicks")).toBe("4");
    expect(await page.getByTestId("top-link").count()).toBe(2);
    expect(await page.getByTestId("analytics-csv").getAttribute("href")).toBe(`/api/analytics.csv?range=7d&tz=UTC&owner=${ownerId}`);
  });
});
