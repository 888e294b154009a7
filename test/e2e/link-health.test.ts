// Link health in the dashboard, in real Chromium, against destinations on loopback (docs/health.md): the list's
// "Broken" badge (and its quiet "Failing"), its Health filter, the link page's Health section (each destination's
// state, answer, response time, final address, certificate and last checks), its loading, error and "not checked
// yet" states, the operator's figures, and the operator's links with their badges and the same filter; axe finds no
// serious problem; screenshots at 1280 and 390 px, light and dark. The server's clock starts four hours behind and
// moves one hour per check pass, ending two hours ago (so that "2 hours ago" still reads so however long the walk
// takes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { ManualClock } from "../../src/shared/clock.js";
import { type CheckingServer, startCheckingServer } from "../helpers/health-receivers.js";
import {
  SCHEMES_AND_WIDTHS,
  browserAvailable,
  ensureWebBuilt,
  launchBrowser,
  screenshotModes,
  seriousAxeProblems,
  signInPage,
  type BrowserSession,
} from "./browser.js";

const available = browserAvailable();
const HOUR = 3_600_000;
const PASSWORD = "link-health-password-1";

/** Each row's title and the words of its health badge ("" without one), by title (links made at one instant tie in the list). */
const rowsWithHealth = async (page: Page) =>
  (
    await page
      .getByTestId("link-row")
      .evaluateAll((rows) =>
        rows.map((r) => [r.querySelector('[data-testid="link-title"]')?.textContent ?? "", r.querySelector('[data-testid="link-health"]')?.textContent ?? ""]),
      )
  ).sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));

describe.skipIf(!available)("link health in the dashboard", () => {
  let checking: CheckingServer;
  let browser: BrowserSession;
  const clock = new ManualClock(Date.now() - 4 * HOUR);
  const ids = { broken: "", failing: "", ok: "", waiting: "", fresh: "" };
  const email = "health-e2e@example.com";
  const opsEmail = "health-e2e-ops@example.com";

  beforeAll(async () => {
    await ensureWebBuilt();
    checking = await startCheckingServer({ clock });
    const { server, dest } = checking;
    const owner = await server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    await server.ctx.accounts.create({ email: opsEmail, password: PASSWORD, plan: "free", verified: true, admin: true });
    const make = async (title: string, url: string, more: Record<string, string> = {}) => (await server.ctx.links.create(owner, { url, title, ...more })).id;
    ids.broken = await make("Spring sale", `${dest.origin}/ok`, { ios_url: `${dest.origin}/500` });
    ids.ok = await make("Home page", `${dest.origin}/ok`);
    ids.waiting = await make("Busy partner", `${dest.origin}/429`);
    const check = () => server.ctx.linkHealth.runNow();
    await check();
    for (let i = 0; i < 2; i++) {
      clock.advance(HOUR);
      await check();
    }
    ids.failing = await make("Old docs", `${dest.origin}/404`);
    await check();
    // Made after the last pass: not checked yet.
    ids.fresh = await make("Brand new", `${dest.origin}/ok`);
    browser = await launchBrowser({ baseURL: server.url });
  });
  afterAll(async () => {
    await browser?.close();
    await checking?.close();
  });

  it("the list: a Broken badge, a quiet Failing one, none for the rest; the Health filter", async () => {
    const page = browser.page;
    await signInPage(page, email, PASSWORD);
    await page.getByTestId("link-row").first().waitFor();
    expect(await rowsWithHealth(page)).toEqual([
      ["Brand new", ""],
      ["Busy partner", ""],
      ["Home page", ""],
      ["Old docs", "Failing"],
      ["Spring sale", "Broken"],
    ]);
    const broken = page.locator(`[data-link-id="${ids.broken}"] [data-testid="link-health"]`);
    expect(await broken.getAttribute("class")).toBe("badge badge-fail");
    expect(await broken.getAttribute("title")).toBe("A destination failed three checks in a row");
    expect(await page.locator(`[data-link-id="${ids.failing}"] [data-testid="link-health"]`).getAttribute("class")).toBe("badge badge-muted");
    await screenshotModes(page, "link-health-list");
    // At 1280 px the search and the sort share a line, and the five chips the next (none wraps the sort away).
    const top = async (testId: string) => Math.round((await page.getByTestId(testId).boundingBox())!.y);
    expect(Math.abs((await top("links-sort")) - (await top("links-search")))).toBeLessThan(8);
    const chipTops = await page.locator('[data-testid="filter-chips"] > *').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(chipTops.length).toBe(5);
    expect(new Set(chipTops).size).toBe(1);
    expect(chipTops[0]).toBeGreaterThan(await top("links-search"));

    const choose = async (label: string) => {
      await page.getByTestId("filter-health").click();
      await page.getByTestId("filter-health-panel").getByText(label, { exact: true }).click();
    };
    await choose("Broken");
    await page.waitForURL((u) => u.searchParams.get("health") === "broken");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="link-row"]').length === 1);
    expect(await rowsWithHealth(page)).toEqual([["Spring sale", "Broken"]]);
    expect(await page.getByTestId("filter-health").textContent()).toContain("Health: Broken");
    await choose("Not checked");
    await page.waitForURL((u) => u.searchParams.get("health") === "unchecked");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="link-row"]').length === 2);
    expect(await rowsWithHealth(page)).toEqual([
      ["Brand new", ""],
      ["Busy partner", ""],
    ]);
    // On a phone the chip sits behind "Filters", which counts it.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.getByTestId("filters-toggle").textContent()).toBe("Filters (1)");
    await page.getByTestId("filters-toggle").click();
    await choose("Failing");
    await page.waitForURL((u) => u.searchParams.get("health") === "failing");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="link-row"]').length === 1);
    expect(await rowsWithHealth(page)).toEqual([["Old docs", "Failing"]]);
    await screenshotModes(page, "link-health-list-filtered");
  });

  it("the link page: each destination's state, last answer, final address and last checks", async () => {
    const page = browser.page;
    await page.goto(`/app/links/${ids.broken}`);
    await page.getByTestId("dest-health").first().waitFor();
    expect(await page.getByTestId("link-status").getByTestId("link-health").textContent()).toBe("Broken");
    const facts = (destination: string, testId: string) => page.locator(`[data-destination="${destination}"] [data-testid="${testId}"]`).textContent();
    expect(
      await page
        .getByTestId("dest-health")
        .evaluateAll((ds) => ds.map((d) => [d.getAttribute("data-destination"), d.querySelector('[data-testid="dest-health-state"]')?.textContent])),
    ).toEqual([
      ["default", "OK"],
      ["ios", "Broken"],
    ]);
    expect(await facts("default", "dest-health-answer")).toBe("Answered (200)");
    expect(await facts("default", "dest-health-final")).toBe("The destination itself (no redirect)");
    expect(await facts("default", "dest-health-tls")).toBe("—");
    expect(await facts("default", "dest-health-checked")).toBe("4 hours ago");
    expect(await facts("ios", "dest-health-answer")).toBe("Server error (500)");
    expect(await facts("ios", "dest-health-checked")).toBe("2 hours ago");
    expect(await facts("ios", "dest-health-url")).toBe(`${checking.dest.origin}/500`);
    expect(await facts("ios", "dest-health-time")).toMatch(/^\d+ ms$/);
    expect(await page.locator('[data-destination="ios"] [data-testid="dest-health-broken-since"]').count()).toBe(1);
    // A broken destination's last checks are open, an answering one's folded.
    expect(await page.locator('[data-destination="ios"] [data-testid="dest-health-history"]').getAttribute("open")).toBe("");
    expect(await page.locator('[data-destination="default"] [data-testid="dest-health-history"]').getAttribute("open")).toBeNull();
    const checks = page.locator('[data-destination="ios"] [data-testid="dest-health-check"]');
    expect(await checks.count()).toBe(3);
    expect(await checks.evaluateAll((rows) => rows.map((r) => r.querySelectorAll("td")[1]?.textContent))).toEqual([
      "Server error (500)",
      "Server error (500)",
      "Server error (500)",
    ]);
    for (const [scheme, width] of SCHEMES_AND_WIDTHS) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${scheme} ${width}`).toBe(0);
      expect(
        await seriousAxeProblems(page),
        `${scheme} ${width}: ${await page
          .locator("body")
          .innerHTML()
          .then((h) => h.length)}`,
      ).toEqual([]);
    }
    await screenshotModes(page, "link-health-page-broken");
  });

  it("not checked yet, a failed read with Try again, and the loading words", async () => {
    const page = browser.page;
    await page.goto(`/app/links/${ids.fresh}`);
    expect(await page.getByTestId("link-health-empty").textContent()).toBe(
      "Not checked yet: each destination is checked soon after it is saved, then on a schedule.",
    );
    await page.goto(`/app/links/${ids.waiting}`);
    await page.getByTestId("dest-health").waitFor();
    expect(await page.getByTestId("dest-health-state").textContent()).toBe("Not checked yet");
    expect(await page.getByTestId("dest-health-answer").textContent()).toBe("Asked to wait (429)");

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let fail = true;
    await page.route("**/api/links/*/health", async (route) => {
      await held;
      if (fail)
        await route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({ status: "error", code: "internal", message: "Something failed" }),
        });
      else await route.continue();
    });
    await page.goto(`/app/links/${ids.ok}`);
    expect(await page.getByTestId("link-health-loading").textContent()).toBe("Loading the checks…");
    expect(await page.getByTestId("link-health-section").getAttribute("aria-busy")).toBe("true");
    await screenshotModes(page, "link-health-page-loading");
    release();
    expect(await page.getByTestId("link-health-error").textContent()).toBe("Could not load the checks: Something failed Try again");
    await screenshotModes(page, "link-health-page-error");
    fail = false;
    await page.getByTestId("link-health-retry").click();
    await page.getByTestId("dest-health").waitFor();
    expect(await page.getByTestId("dest-health-state").textContent()).toBe("OK");
    await page.unroute("**/api/links/*/health");
  });

  it("the operator's overview: links with a broken destination, destinations broken, failing and due", async () => {
    const page = browser.page;
    await page.context().clearCookies();
    await signInPage(page, opsEmail, PASSWORD);
    await page.goto("/app/admin");
    await page.getByTestId("health-link-checks").waitFor();
    expect(await page.getByTestId("overview-links-broken").textContent()).toBe("1 broken");
    expect(await page.getByTestId("health-link-checks").textContent()).toBe("1 due now · 1 broken · 1 failing");
    await screenshotModes(page, "link-health-admin-overview");
  });

  it("the operator's links: each row's health badge and the Health filter", async () => {
    const page = browser.page;
    const healthOfRows = () =>
      page
        .getByTestId("admin-link-row")
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-link-id"), r.querySelector('[data-testid="link-health"]')?.textContent ?? ""]).sort());
    await page.goto("/app/admin/links");
    await page.getByTestId("admin-link-row").first().waitFor();
    expect(await healthOfRows()).toEqual(
      [
        [ids.broken, "Broken"],
        [ids.failing, "Failing"],
        [ids.ok, ""],
        [ids.waiting, ""],
        [ids.fresh, ""],
      ].sort(),
    );
    await page.getByTestId("admin-links-health").selectOption("broken");
    await page.waitForURL((u) => u.searchParams.get("health") === "broken");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="admin-link-row"]').length === 1);
    expect(await healthOfRows()).toEqual([[ids.broken, "Broken"]]);
    await screenshotModes(page, "link-health-admin-links");
    await page.getByTestId("admin-links-health").selectOption("unchecked");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="admin-link-row"]').length === 2);
    expect(await healthOfRows()).toEqual(
      [
        [ids.fresh, ""],
        [ids.waiting, ""],
      ].sort(),
    );
  });
});
