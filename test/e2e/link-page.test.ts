// Browser test of a link's own page (/app/links/{id}): its numbers first (exact values after real clicks), then its
// actions (copy, edit, QR, archive and restore, delete after a confirmation), then its details; rules and split as
// tables with their exact rows; the QR design panel in a dialog that leaves the details column's width alone; every
// state of a link, not found and a failed read; at 1280 and 390 px, with screenshots in light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { AxeBuilder } from "@axe-core/playwright";
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

  beforeAll(async () => {
    f = await startBrowserFixture();
    await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    await f.server.ctx.accounts.create({ email: freeEmail, password, plan: "free", verified: true });
  });
  afterAll(async () => f?.close());

  const owner = async () => (await f.server.ctx.accounts.byEmail(email))!;

  it("shows its numbers first: clicks, visitors, last click and 30 days of clicks, then its actions, then its details", async () => {
    const link = await f.server.ctx.links.create(await owner(), { url: "https://example.com/numbers", alias: "numbers-e2e", title: "Spring numbers" });
    // Five clicks from two visitors (a visitor is an address and a browser on a day).
    for (const ua of [UA.iphone, UA.iphone, UA.iphone, UA.windows, UA.windows])
      expect(await visit(f.server.url, "/numbers-e2e", { "user-agent": ua })).toBe(302);
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
    // Test servers check no destination (LINK_CHECKS=off): the Health section says so (test/e2e/link-health.test.ts has them on).
    expect(await page.getByTestId("link-health-off").textContent()).toBe("This server does not check destinations: its operator turned link checks off.");
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
  it("rules, device destinations and split as tables with their exact rows, at 1280 and 390 px", async () => {
    const link = await f.server.ctx.links.create(await owner(), {
      url: "https://example.com/default",
      alias: "targeted-e2e",
      title: "Targeted",
      ios_url: "https://apps.example.com/ios",
      android_url: "https://apps.example.com/android",
      rules: [
        { if: { country: ["FR", "BE"] }, url: "https://example.fr/" },
        { if: { language: ["de"], device: ["desktop"] }, url: "https://example.com/de" },
      ],
      split: [
        { url: "https://example.com/a", weight: 60 },
        { url: "https://example.com/b/with/a/rather/long/path/that/must/wrap/on/a/phone?utm_source=newsletter", weight: 40 },
      ],
    });
    const page = f.browser.page;
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-rules-table").waitFor();
    const heads = (testId: string) => page.getByTestId(testId).locator("thead th").allTextContents();
    expect(await heads("link-rules-table")).toEqual(["#", "Condition", "Destination"]);
    expect(await cells(page, "link-rules-table")).toEqual([
      ["1", "country FR or BE", "https://example.fr/"],
      ["2", "language de, device desktop", "https://example.com/de"],
    ]);
    expect(await heads("link-split-table")).toEqual(["Variant", "Weight", "Destination"]);
    expect(await cells(page, "link-split-table")).toEqual([
      ["Variant A", "60%", "https://example.com/a"],
      ["Variant B", "40%", "https://example.com/b/with/a/rather/long/path/that/must/wrap/on/a/phone?utm_source=newsletter"],
    ]);
    expect(await heads("link-devices-table")).toEqual(["Device", "Destination"]);
    expect(await cells(page, "link-devices-table")).toEqual([
      ["iPhone and iPad", "https://apps.example.com/ios"],
      ["Android", "https://apps.example.com/android"],
    ]);
    // Not said twice: the settings list leaves them to the tables.
    for (const id of ["summary-rule-1", "summary-split", "summary-ios", "summary-android"]) expect(await page.getByTestId(id).count()).toBe(0);
    // In the order a visit meets them: rules, then devices, then the split; all after the details.
    const [details, rules, devices, split] = [
      await top(page, "created-link"),
      await top(page, "link-rules"),
      await top(page, "link-devices"),
      await top(page, "link-split"),
    ];
    expect(details < rules && rules < devices && devices < split).toBe(true);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      // The tables fit their column: no sideways scrolling inside them either.
      for (const id of ["link-rules-table", "link-split-table", "link-devices-table"]) {
        const fits = await page.getByTestId(id).evaluate((t) => t.scrollWidth <= (t.parentElement as HTMLElement).clientWidth);
        expect(fits, `${id} at ${width} px`).toBe(true);
      }
    }
    await screenshotModes(page, "link-page-rules-split");
  });

  it("the QR design panel opens in a dialog: the details column keeps its width, nothing overflows at 390 px", async () => {
    const link = await f.server.ctx.links.create(await owner(), { url: "https://example.com/qr-panel", alias: "qr-panel-e2e" });
    const page = f.browser.page;
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-page-qr-card").getByTestId("qr-image").waitFor();
    const detailsWidth = async () => (await page.getByTestId("link-details").boundingBox())?.width ?? 0;
    const dialog = page.getByTestId("qr-dialog");
    for (const [width, least] of [
      [1280, 600],
      [390, 300],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      const before = await detailsWidth();
      expect(before).toBeGreaterThan(least);
      await page.getByTestId(width === 1280 ? "link-page-qr-design" : "link-page-qr").click();
      await dialog.getByTestId("qr-fg").waitFor();
      expect(await dialog.getByTestId("qr-design").getAttribute("open")).toBe("");
      await dialog.getByTestId("qr-fg").fill("#0b3d2e");
      expect(await detailsWidth()).toBe(before);
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= width).toBe(true);
      expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await expect.poll(() => dialog.getByTestId("qr-svg").getAttribute("href")).toBe("/api/qr/qr-panel-e2e?fg=0b3d2e");
      if (width === 390) await screenshotModes(page, "link-page-qr-panel");
      await dialog.getByTestId("qr-dialog-close").click();
      await dialog.waitFor({ state: "hidden" });
    }
  });

  it("its actions work: copy, edit, archive and restore, delete after a confirmation", async () => {
    const link = await f.server.ctx.links.create(await owner(), { url: "https://example.com/actions", alias: "actions-e2e" });
    const page = f.browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-page-copy").click();
    await expect.poll(() => page.getByTestId("link-page-copy").textContent()).toBe("Copied!");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${f.server.url}/actions-e2e`);

    const archived = async () =>
      (await f.server.ctx.storage.db.selectFrom("links").select("archived_at").where("id", "=", link.id).executeTakeFirstOrThrow()).archived_at !== null;
    await page.getByTestId("link-page-archive").click();
    await page.getByTestId("link-archived").waitFor();
    expect(await page.getByTestId("link-status-archived").textContent()).toBe(
      "Archived: it still redirects, and your list shows it only under the Archived filter.",
    );
    expect(await page.getByTestId("link-page-archive").textContent()).toBe("Restore");
    expect(await archived()).toBe(true);
    await page.getByTestId("link-page-archive").click();
    await page.getByTestId("link-archived").waitFor({ state: "detached" });
    expect(await page.getByTestId("link-page-archive").textContent()).toBe("Archive");
    expect(await archived()).toBe(false);

    await page.getByTestId("created-edit").click();
    await page.waitForURL((u) => u.pathname === `/app/links/${link.id}/edit`);
    await page.getByTestId("link-url").waitFor();
    await page.goBack();
    await page.getByTestId("link-page-delete").click();
    const confirm = page.getByTestId("confirm-dialog");
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain(`${f.server.url}/actions-e2e will stop working immediately`);
    await confirm.getByTestId("confirm-cancel").click();
    expect(await f.server.ctx.storage.db.selectFrom("links").select("id").where("id", "=", link.id).executeTakeFirst()).toBeDefined();
    await page.getByTestId("link-page-delete").click();
    await confirm.getByTestId("confirm-ok").click();
    await page.waitForURL((u) => u.pathname === "/app");
    expect(await f.server.ctx.storage.db.selectFrom("links").select("id").where("id", "=", link.id).executeTakeFirst()).toBeUndefined();
    // Its page is gone too.
    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("link-not-found").waitFor();
    expect(await page.locator("h1").textContent()).toBe("Link not found");
  });

  it("every state reads right: expired, limited, scheduled, password, archived; loading and a failed read", async () => {
    const me = await owner();
    const db = f.server.ctx.storage.db;
    const make = (alias: string, extra: Record<string, unknown> = {}) =>
      f.server.ctx.links.create(me, { url: `https://example.com/${alias}`, alias, ...extra });
    const expired = await make("expired-e2e", { expired_url: "https://example.com/sorry" });
    const past = Date.now() - 3_600_000;
    await db.updateTable("links").set({ expires_at: past }).where("id", "=", expired.id).execute();
    const limited = await make("limited-e2e", { max_clicks: 1 });
    expect(await visit(f.server.url, "/limited-e2e", { "user-agent": UA.iphone })).toBe(302);
    await f.server.ctx.clicks.flush();
    const opens = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const scheduled = await make("scheduled-e2e", { starts_at: opens });
    const locked = await make("password-e2e", { password: "open sesame" });
    const page = f.browser.page;
    const when = (iso: string | number) =>
      page.evaluate((t) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(t)), iso);
    const status = async (id: string) => {
      await page.goto(`/app/links/${id}`);
      await page.getByTestId("link-status").waitFor();
      return page.getByTestId("link-status").locator("li").allTextContents();
    };
    expect(await status(expired.id)).toEqual([`Expired on ${await when(past)}: visitors are sent to https://example.com/sorry.`]);
    expect(await page.getByTestId("link-state").getAttribute("data-state")).toBe("expired");
    await screenshotModes(page, "link-page-expired");
    expect(await status(limited.id)).toEqual(["Reached its limit of 1 click: visitors get a page saying so."]);
    expect(await page.getByTestId("link-state").textContent()).toBe("Limit of 1 click reached");
    expect(await status(scheduled.id)).toEqual([`Opens on ${await when(opens)}: until then visitors get a page saying when, and no click counts.`]);
    expect(await page.getByTestId("link-scheduled").textContent()).toBe(`Opens ${await when(opens)}`);
    expect(await status(locked.id)).toEqual(["Protected by a password: visitors type it before they are sent on."]);

    // Loading, then a failed read with a way to try again.
    let fail = true;
    await page.route(`**/api/links/${locked.id}`, async (route) => {
      await new Promise((r) => setTimeout(r, 600));
      if (fail)
        await route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ status: "error", code: "internal", message: "Something broke" }),
        });
      else await route.continue();
    });
    await page.goto(`/app/links/${locked.id}`);
    // While the link loads (the session's own spinner comes first), the page says what it waits for.
    await page.getByTestId("loading").filter({ hasText: "Loading the link…" }).waitFor();
    await page.getByTestId("link-page-error").waitFor();
    expect(await page.getByTestId("link-page-error").textContent()).toBe("Could not load this link: Something broke");
    await screenshotModes(page, "link-page-error");
    fail = false;
    await page.getByTestId("link-page-retry").click();
    await page.getByTestId("link-status-password").waitFor();
    await page.unroute(`**/api/links/${locked.id}`);
    // The numbers alone failing: the rest of the page stands, with a retry.
    await page.route(`**/api/links/${locked.id}/stats?*`, (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ status: "error", code: "internal", message: "Stats down" }) }),
    );
    await page.reload();
    await page.getByTestId("link-numbers-error").waitFor();
    expect(await page.getByTestId("link-numbers-error").textContent()).toBe("Could not load the statistics: Stats down Try again");
    expect(await page.getByTestId("created-link").isVisible()).toBe(true);
    await page.unroute(`**/api/links/${locked.id}/stats?*`);
    await page.getByTestId("link-numbers-retry").click();
    await page.getByTestId("link-page-sparkline").waitFor();
    expect(await page.getByTestId("link-numbers-error").count()).toBe(0);

    // An id that is no link: the page says so.
    await page.goto("/app/links/no-such-link");
    await page.getByTestId("link-not-found").waitFor();
    expect(await page.title()).toBe("Link not found · snip");
  });
  it("axe finds no serious or critical violation on the page with its tables, nor in its QR dialog, light and dark", async () => {
    const targeted = await f.server.ctx.storage.db.selectFrom("links").select("id").where("alias", "=", "targeted-e2e").executeTakeFirstOrThrow();
    const page = f.browser.page;
    const audit = async (name: string) =>
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${name}: ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    const problems: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`/app/links/${targeted.id}`);
      await page.getByTestId("link-page-sparkline").waitFor();
      problems.push(...(await audit(`${scheme} page`)));
      await page.getByTestId("link-page-qr").click();
      await page.getByTestId("qr-dialog").getByTestId("qr-image").waitFor();
      problems.push(...(await audit(`${scheme} QR dialog`)));
    }
    await page.emulateMedia({ colorScheme: "light" });
    expect(problems).toEqual([]);
  });
});
