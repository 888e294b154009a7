// Browser test of the dense link list and the command palette: 55 links seeded through the API; nine or more rows
// visible at 1280 x 800, fifty a page and "Load more"; the short link copied on click with "Copied"; badges only for
// what is not the usual; the keys "/", "c", the arrows (and j, k) and Enter; the palette (Ctrl-K) reaching a page and
// actions, locked pages marked, operator pages for operators only, Escape returning the focus; the phone's stacked
// rows without sideways scrolling; screenshots at 1280 and 390 px, light and dark, full, empty and with the palette.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ApiClient } from "../helpers/client.js";

const available = browserAvailable();
const PASSWORD = "dense-list-password-1";

/** Rows whose whole box lies inside the window. */
const rowsInView = (page: Page) =>
  page.getByTestId("link-row").evaluateAll(
    (rows) =>
      rows.filter((r) => {
        const b = r.getBoundingClientRect();
        return b.height > 0 && b.top >= 0 && b.bottom <= window.innerHeight;
      }).length,
  );
const aliasOf = (page: Page, i: number) =>
  page
    .getByTestId("link-row")
    .nth(i)
    .getByTestId("link-short-url")
    .textContent()
    .then((t) => t?.split("/").pop() ?? "");
const paletteOptions = (page: Page) => page.getByRole("dialog", { name: "Search or jump to" }).getByRole("option").allTextContents();

describe.skipIf(!available)("the dense link list and the command palette", () => {
  let fixture: BrowserFixture;
  let api: ApiClient;
  const stamp = Date.now().toString(36);
  const email = `dense-${stamp}@example.com`;
  const freeEmail = `dense-free-${stamp}@example.com`;
  const opsEmail = `dense-ops-${stamp}@example.com`;
  const alias = (i: number) => `dense-${stamp}-${String(i).padStart(2, "0")}`;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { server } = fixture;
    await server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true, name: "Dana Dense" });
    await server.ctx.accounts.create({ email: freeEmail, password: PASSWORD, plan: "free", verified: true });
    await server.ctx.accounts.create({ email: opsEmail, password: PASSWORD, verified: true, admin: true });
    api = new ApiClient(server.url);
    expect((await api.login(email, PASSWORD)).status).toBe(200);
    expect((await api.post("/api/tags", { name: "Spring", color: "green" })).status).toBe(201);
    const extra: Record<number, Record<string, unknown>> = {
      51: { password: "open sesame" },
      52: { max_clicks: 5 },
      53: { starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString() },
      54: { expires_at: new Date(Date.now() + 86_400_000).toISOString() },
    };
    for (let i = 1; i <= 55; i++) {
      const r = await api.post("/api/links", {
        url: `https://www.example.com/spring/collection/landing-page/${i}?utm_source=newsletter&utm_medium=email&utm_campaign=spring`,
        alias: alias(i),
        ...(i % 3 === 0 ? { title: `Spring campaign page ${i}` } : {}),
        ...(i % 4 === 0 ? { tags: ["Spring"] } : {}),
        ...extra[i],
      });
      expect(r.status, r.text).toBe(201);
      ids[alias(i)] = r.body.link.id as string;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // Link 54 expired since (its expiry moved into the past, as time would).
    await server.ctx.storage.db
      .updateTable("links")
      .set({ expires_at: Date.now() - 60_000 })
      .where("id", "=", ids[alias(54)]!)
      .execute();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("shows nine or more rows at 1280 x 800, fifty a page, and the rest with “Load more”", async () => {
    const page = fixture.browser.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    const limits: string[] = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (u.pathname === "/api/links") limits.push(u.searchParams.get("limit") ?? "");
    });
    await signInPage(page, email, PASSWORD);
    await page.getByTestId("link-row").first().waitFor();
    expect(await page.getByTestId("links-total").textContent()).toBe("55 links");
    expect(await page.getByTestId("link-row").count()).toBe(50);
    expect(limits).toEqual(["50"]);
    const visible = await rowsInView(page);
    expect(visible).toBeGreaterThanOrEqual(9);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    // The destination is cut with its whole value on hover.
    const dest = page.getByTestId("link-row").first().getByTestId("link-destination");
    expect(await dest.getAttribute("title")).toBe(
      `https://www.example.com/spring/collection/landing-page/55?utm_source=newsletter&utm_medium=email&utm_campaign=spring`,
    );
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(300);
      await screenshot(page, `dense-01-list-1280-${scheme}`, false);
    }
    await page.emulateMedia({ colorScheme: "light" });

    await page.getByTestId("load-more").click();
    await expect.poll(() => page.getByTestId("link-row").count()).toBe(55);
    expect(limits).toHaveLength(2);
    expect(limits[1]).toBe("50");
    expect(await aliasOf(page, 54)).toBe(alias(1));
  });

  it("copies the short link on click and says “Copied”", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/app");
    const row = page.getByTestId("link-row").filter({ hasText: alias(7) });
    expect(await row.getByTestId("link-copied").textContent()).toBe("");
    await row.getByTestId("link-short-url").click();
    await expect.poll(() => row.getByTestId("link-copied").textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${fixture.server.url}/${alias(7)}`);
    // Copying stays on the list.
    expect(new URL(page.url()).pathname).toBe("/app");
    await expect.poll(() => row.getByTestId("link-copied").textContent(), { timeout: 4000 }).toBe("");
  });

  it("shows a badge only for what is not the usual", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").first().waitFor();
    const badges = (i: number) =>
      page
        .getByTestId("link-row")
        .filter({ hasText: alias(i) })
        .locator(".badge")
        .allTextContents();
    expect(await badges(50)).toEqual([]);
    expect(await badges(48)).toEqual([]);
    expect(await badges(51)).toEqual(["Password"]);
    expect(await badges(52)).toEqual(["Limit of 5 clicks"]);
    expect(await badges(53)).toEqual(["Not open yet"]);
    const today = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(new Date());
    expect(await badges(54)).toEqual([`Expired ${today}`]);
    expect(
      await page
        .getByTestId("link-row")
        .filter({ hasText: alias(54) })
        .getByTestId("link-state")
        .getAttribute("data-state"),
    ).toBe("expired");
    // No "Active" anywhere in the list.
    expect(await page.getByTestId("link-state").count()).toBe(1);
    expect(await page.getByTestId("link-list").getByText("Active", { exact: true }).count()).toBe(0);
  });

  it("the keys: “/” searches, “c” opens the builder, the arrows and Enter open a link's page", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").first().waitFor();
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("links-search");
    // Typed in the search box, "c" and the arrows are text, not commands.
    await page.keyboard.type("c");
    expect(await page.getByTestId("links-search").inputValue()).toBe("c");
    expect(new URL(page.url()).pathname).toBe("/app");
    await page.getByTestId("links-search").fill("");
    await page.waitForTimeout(400);
    expect(new URL(page.url()).search).toBe("");
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // A modifier held: not ours.
    await page.keyboard.press("Control+c");
    expect(new URL(page.url()).pathname).toBe("/app");

    // "c" opens the builder over the list; closed, the list is as it was.
    await page.keyboard.press("c");
    await page.getByTestId("builder-dialog").getByTestId("link-url").waitFor();
    expect(new URL(page.url()).pathname).toBe("/app");
    await page.getByTestId("builder-close").click();
    await page.getByTestId("builder-dialog").waitFor({ state: "hidden" });
    await page.getByTestId("link-row").first().waitFor();

    const current = () => page.locator('[data-testid="link-row"][data-current]').getAttribute("data-link-id");
    expect(await page.locator('[data-testid="link-row"][data-current]').count()).toBe(0);
    await page.keyboard.press("ArrowDown");
    expect(await current()).toBe(ids[alias(55)]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    expect(await current()).toBe(ids[alias(53)]);
    await page.keyboard.press("ArrowUp");
    expect(await current()).toBe(ids[alias(54)]);
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    await page.keyboard.press("k");
    expect(await current()).toBe(ids[alias(55)]);
    await page.keyboard.press("k");
    expect(await current()).toBe(ids[alias(55)]);
    await page.keyboard.press("j");
    // The current row has the focus, drawn as a ring.
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-link-id"))).toBe(ids[alias(54)]);
    await screenshot(page, "dense-02-keyboard-current", false);
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === `/app/links/${ids[alias(54)]}`);
  });

  it("the palette: Ctrl-K opens it, reaches a page and actions; Escape closes it and the focus returns", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").first().waitFor();
    await page.getByTestId("links-sort").focus();
    await page.keyboard.press("Control+k");
    const dialog = page.getByRole("dialog", { name: "Search or jump to" });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("palette-input");
    const all = await paletteOptions(page);
    expect(all).toContain("Create a linkAction");
    expect(all).toContain("WebhooksTeam and sharing");
    expect(all).toContain("Sign outAction");
    expect(all.some((o) => o.startsWith("Operator"))).toBe(false);
    await page.emulateMedia({ colorScheme: "light" });
    await screenshot(page, "dense-03-palette-1280-light", false);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("links-sort");

    // A page, by typing and Enter.
    await page.keyboard.press("Control+k");
    await dialog.waitFor();
    await page.keyboard.type("webho");
    expect((await paletteOptions(page))[0]).toBe("WebhooksTeam and sharing");
    expect(await page.getByTestId("palette-input").getAttribute("aria-activedescendant")).toBe(await dialog.getByRole("option").first().getAttribute("id"));
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === "/app/webhooks");
    expect(await dialog.count()).toBe(0);

    // An action, with the arrow keys: the dark theme.
    await page.keyboard.press("Control+k");
    await dialog.waitFor();
    await page.keyboard.type("theme");
    expect(await paletteOptions(page)).toEqual(["Switch to the dark themeAction", "Search links for “theme”Action"]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.documentElement.getAttribute("data-theme"))).toBe("dark");
    expect(await page.getByTestId("theme-dark").first().getAttribute("aria-pressed")).toBe("true");

    // The button in the sidebar opens it too; "search links for" opens the list filtered.
    await page.getByTestId("palette-open").click();
    await dialog.waitFor();
    await page.keyboard.type(alias(7));
    const options = await paletteOptions(page);
    expect(options[options.length - 1]).toBe(`Search links for “${alias(7)}”Action`);
    await dialog.getByRole("option").last().click();
    await page.waitForURL((u) => u.pathname === "/app" && u.searchParams.get("q") === alias(7));
    await expect.poll(() => page.getByTestId("links-total").textContent()).toBe("1 link");
    expect(await page.getByTestId("links-search").inputValue()).toBe(alias(7));
    await page.keyboard.press("Control+k");
    await dialog.waitFor();
    await screenshot(page, "dense-04-palette-1280-dark", false);
    await page.keyboard.press("Escape");
    await page.evaluate(() => {
      localStorage.removeItem("snip-theme");
      document.documentElement.removeAttribute("data-theme");
    });
  });

  it("the palette marks pages the plan lacks and lists operator pages for operators only", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, freeEmail, PASSWORD);
    // The sidebar's button is drawn after the palette's key is listened for: a key pressed sooner is lost.
    await page.getByTestId("palette-open").waitFor();
    await page.keyboard.press("Control+k");
    await page.getByTestId("palette-input").waitFor();
    await page.keyboard.type("bulk");
    expect(await paletteOptions(page)).toEqual(["Bulk create linksBusinessAction", "Search links for “bulk”Action"]);
    await page.keyboard.press("Escape");
    await page.getByTestId("links-empty").waitFor();
    await screenshot(page, "dense-05-empty-1280-light", false);
    await page.setViewportSize({ width: 390, height: 844 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(300);
      await screenshot(page, `dense-05-empty-390-${scheme}`, false);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 800 });

    await fixture.browser.context.clearCookies();
    await signInPage(page, opsEmail, PASSWORD);
    await page.getByTestId("palette-open").waitFor();
    await page.keyboard.press("Control+k");
    await page.getByTestId("palette-input").waitFor();
    await page.keyboard.type("operator");
    expect((await paletteOptions(page))[0]).toBe("OperatorOperator");
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === "/app/admin");
  });

  it("on a phone: the short link and clicks on one line, the destination below, no sideways scrolling", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, email, PASSWORD);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/app");
    const row = page.getByTestId("link-row").filter({ hasText: alias(51) });
    await row.waitFor();
    const box = async (testId: string) => (await row.getByTestId(testId).boundingBox())!;
    const short = await box("link-short-url");
    const clicks = await box("link-clicks");
    const dest = await box("link-destination");
    // One line: their vertical middles within a few pixels; the destination wholly below.
    expect(Math.abs(short.y + short.height / 2 - (clicks.y + clicks.height / 2))).toBeLessThan(6);
    expect(dest.y).toBeGreaterThanOrEqual(short.y + short.height - 1);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), scheme).toBeLessThanOrEqual(390);
      await screenshot(page, `dense-06-list-390-${scheme}`, false);
    }
    await page.getByTestId("palette-open-bar").click();
    await page.getByRole("dialog", { name: "Search or jump to" }).waitFor();
    await screenshot(page, "dense-07-palette-390-dark", false);
    await page.keyboard.press("Escape");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
