// Browser test of the link-state badge: the same badge and words for every state in the owner's list, a team
// member's shared list and the operator's list, and the operator's state filter. The owner's and the member's lists
// show a badge only when the state is not the usual one (no "Active" there); the operator's list names every state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { SEED_PASSWORD, seedEveryState, type Seeded } from "./seed.js";

const available = browserAvailable();

describe.skipIf(!available)("link states in the browser", () => {
  let fixture: BrowserFixture;
  let seeded: Seeded;
  const stamp = Date.now().toString(36);

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    seeded = await seedEveryState(fixture.server, stamp);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const signIn = async (page: Page, email: string) => {
    await fixture.browser.context.clearCookies();
    await signInPage(page, email, SEED_PASSWORD);
  };

  /** The state and the badge's words of the row holding `alias`. */
  const badge = async (page: Page, rowTestId: string, alias: string) => {
    const b = page.getByTestId(rowTestId).filter({ hasText: alias }).getByTestId("link-state");
    return [await b.getAttribute("data-state"), await b.textContent()];
  };

  const expectEveryState = async (page: Page, rowTestId: string, { active }: { active: boolean }) => {
    const a = seeded.alias;
    const today = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(new Date());
    for (const alias of [a.plain, a.open, a.password]) {
      if (active) expect(await badge(page, rowTestId, alias)).toEqual(["active", "Active"]);
      else expect(await page.getByTestId(rowTestId).filter({ hasText: alias }).getByTestId("link-state").count()).toBe(0);
    }
    expect(await badge(page, rowTestId, a.expired)).toEqual(["expired", `Expired ${today}`]);
    expect(await badge(page, rowTestId, a.used)).toEqual(["limit_reached", "Limit of 1 click reached"]);
    expect(await badge(page, rowTestId, a.disabled)).toEqual(["disabled", "Disabled by the operator (410)"]);
    expect(await badge(page, rowTestId, a.blocked)).toEqual(["blocked", "Destination blocked"]);
  };

  it("the owner's list and a member's shared list show one badge per state, with the same words", async () => {
    const page = fixture.browser.page;
    await signIn(page, seeded.owner.email);
    await page.getByTestId("link-row").filter({ hasText: seeded.alias.blocked }).waitFor();
    await expectEveryState(page, "link-row", { active: false });
    // An active link says what limits it, and only that.
    const open = page.getByTestId("link-row").filter({ hasText: seeded.alias.open });
    expect(await open.getByTestId("link-click-limit").textContent()).toBe("Limit of 5 clicks");
    expect(await page.getByTestId("link-row").filter({ hasText: seeded.alias.password }).locator(".badge").allTextContents()).toEqual(["Password"]);
    expect(await page.getByTestId("link-row").filter({ hasText: seeded.alias.plain }).locator(".badge").count()).toBe(0);
    expect(await page.getByTestId("link-list").getByText("Active", { exact: true }).count()).toBe(0);
    expect(await page.getByText(/Max \d+ clicks/).count()).toBe(0);
    await screenshot(page, "e2e-link-states-01-owner");

    await signIn(page, seeded.member.email);
    await page.goto(`/app/shared/${seeded.owner.id}`);
    await page.getByTestId("link-row").filter({ hasText: seeded.alias.blocked }).waitFor();
    await expectEveryState(page, "link-row", { active: false });
    await screenshot(page, "e2e-link-states-02-shared");
  });

  it("the operator's list shows the same badges and filters by state", async () => {
    const page = fixture.browser.page;
    await signIn(page, seeded.operator.email);
    await page.goto(`/app/admin/links?owner=${encodeURIComponent(seeded.owner.email)}`);
    await page.getByTestId("admin-link-row").filter({ hasText: seeded.alias.blocked }).waitFor();
    await expectEveryState(page, "admin-link-row", { active: true });
    expect(await page.getByTestId("admin-link-row").filter({ hasText: seeded.alias.disabled }).getByTestId("link-state-reason").textContent()).toBe(
      "Phishing page reported twice",
    );
    await screenshot(page, "e2e-link-states-03-operator");

    const shown = async (state: string) => {
      await page.getByTestId("admin-links-state").selectOption(state);
      await page.waitForURL((u) => u.searchParams.get("state") === state);
      await expect
        .poll(() =>
          page.getByTestId("admin-link-row").evaluateAll((rows) => rows.map((r) => r.querySelector('[data-testid="link-state"]')?.getAttribute("data-state"))),
        )
        .toSatisfy((states: unknown[]) => states.length > 0 && states.every((s) => s === state));
      return (await page.getByTestId("admin-link-short").allTextContents()).map((t) => t.slice(t.lastIndexOf("/") + 1)).sort();
    };
    const a = seeded.alias;
    expect(await shown("expired")).toEqual([a.expired]);
    expect(await shown("limit_reached")).toEqual([a.used]);
    expect(await shown("disabled")).toEqual([a.disabled]);
    expect(await shown("blocked")).toEqual([a.blocked]);
    expect(await shown("active")).toEqual([a.open, a.password, a.plain].sort());
    await screenshot(page, "e2e-link-states-04-operator-filtered");

    // The selected links, disabled at once with one reason; then enabled again.
    await page.getByTestId("admin-links-select-all").check();
    expect(await page.getByTestId("admin-links-bulk").textContent()).toContain("3 links selected");
    await page.getByTestId("admin-links-bulk-disable").click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByTestId("disable-reason").fill("Campaign taken down");
    await dialog.getByTestId("confirm-ok").click();
    await page.getByTestId("admin-links-notice").filter({ hasText: "Disabled 3 links." }).waitFor();
    for (const alias of [a.open, a.password, a.plain]) expect((await fetch(`${fixture.server.url}/${alias}`, { redirect: "manual" })).status).toBe(410);
    expect(await page.getByTestId("admin-links-bulk").count()).toBe(0);
    await page.getByTestId("admin-links-select-all").check();
    await page.getByTestId("admin-links-bulk-enable").click();
    await page.getByTestId("admin-links-notice").filter({ hasText: "Enabled 3 links." }).waitFor();
    expect((await fetch(`${fixture.server.url}/${a.plain}`, { redirect: "manual" })).status).toBe(302);
  });
});
