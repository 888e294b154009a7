// Browser test of redirect rules and splits: a Business user builds two rules (country FR, then iOS devices)
// and a 50/50 split in the link form, saves, reloads and finds them; tests visits (the answer and why); real
// visits then show in the statistics' Destinations panel; a Free user finds the plan gate. Screenshots of the
// sections and the panel at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import type { UserRow } from "../../src/storage/schema.js";
import { UA, visit } from "../helpers/visit.js";

const available = browserAvailable();

/** Full-page shots at 1280 and 390 px in light and dark; none may scroll sideways. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [scheme, width] of [
    ["light", 1280],
    ["light", 390],
    ["dark", 1280],
    ["dark", 390],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    // From the top: a scrolled page's sticky header would be drawn over the middle of a full-page shot.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), `${name} at ${width} px scrolls sideways`).toBe(false);
    await screenshot(page, `${name}-${width}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

const value = (page: Page, testId: string) => page.getByTestId(testId).inputValue();

describe.skipIf(!available)("redirect rules and splits in the browser", () => {
  let fixture: BrowserFixture;
  let business: UserRow;
  let free: UserRow;
  const password = "targeting-password-1";
  const stamp = Date.now().toString(36);
  const alias = `targets-${stamp}`;
  let linkId = "";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    business = await fixture.server.ctx.accounts.create({ email: `biz-${stamp}@example.com`, password, plan: "business", verified: true });
    free = await fixture.server.ctx.accounts.create({ email: `free-${stamp}@example.com`, password, plan: "free", verified: true });
  });
  afterAll(async () => fixture?.close());

  it("builds rules and a 50/50 split, saves them, and finds them after a reload", async () => {
    const page = fixture.browser.page;
    await signInPage(page, business.email, password);
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://example.com/home");
    await page.getByTestId("link-alias").fill(alias);

    // Rule 1: visitors from France. Rule 2: iOS devices (its default country condition swapped for a device one).
    await page.getByTestId("option-rules-toggle").click();
    await page.getByTestId("rule-add").click();
    await page.getByTestId("rule-0-country").fill("fr, be");
    await page.getByTestId("rule-0-url").fill("https://example.com/fr");
    await page.getByTestId("rule-add").click();
    await page.getByTestId("rule-1-cond-country-remove").click();
    await page.getByTestId("rule-1-add-cond").selectOption("device");
    await page.getByTestId("rule-1-device-ios").check();
    await page.getByTestId("rule-1-url").fill("https://example.com/ios");
    expect(await page.getByTestId("rules-count").textContent()).toBe("2 of 20 rules");
    // Moving changes the order; moving back restores it.
    await page.getByTestId("rule-1-up").click();
    expect(await value(page, "rule-0-url")).toBe("https://example.com/ios");
    await page.getByTestId("rule-0-down").click();
    expect(await value(page, "rule-0-url")).toBe("https://example.com/fr");

    // The split: the first variant starts at the link's URL; the sum is shown as weights are typed.
    await page.getByTestId("option-split-toggle").click();
    await page.getByTestId("split-add").click();
    expect(await value(page, "variant-0-url")).toBe("https://example.com/home");
    await page.getByTestId("variant-1-url").fill("https://example.com/home-b");
    await page.getByTestId("variant-1-weight").fill("40");
    expect(await page.getByTestId("split-sum").textContent()).toBe("Weights add up to 90%: they must add up to 100%.");
    // Nothing is sent while a field is wrong: the rule's empty URL and the weights are said at their place.
    await page.getByTestId("rule-add").click();
    await page.getByTestId("rule-2-country").fill("France");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("rule-2-country-error").textContent()).toBe("Use two-letter country codes such as FR, US");
    expect(await page.getByTestId("rule-2-url-error").textContent()).toBe("Enter the destination URL");
    expect(await page.getByTestId("split-sum").getAttribute("class")).toContain("lf-weight-bad");
    await page.getByTestId("rule-2-remove").click();
    await page.getByTestId("variant-1-weight").fill("50");
    expect(await page.getByTestId("split-sum").textContent()).toBe("Weights add up to 100%.");
    await shots(page, "targeting-form");

    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    const row = await fixture.server.ctx.storage.db.selectFrom("links").select(["id", "rules", "split"]).where("alias", "=", alias).executeTakeFirstOrThrow();
    linkId = row.id;
    expect(JSON.parse(row.rules ?? "null")).toEqual([
      { if: { country: ["FR", "BE"] }, url: "https://example.com/fr" },
      { if: { device: ["ios"] }, url: "https://example.com/ios" },
    ]);
    expect(JSON.parse(row.split ?? "null")).toEqual([
      { url: "https://example.com/home", weight: 50 },
      { url: "https://example.com/home-b", weight: 50 },
    ]);

    await page.goto(`/app/links/${linkId}/edit`);
    await page.reload();
    expect(await value(page, "rule-0-country")).toBe("FR, BE");
    expect(await value(page, "rule-0-url")).toBe("https://example.com/fr");
    expect(await page.getByTestId("rule-1-device-ios").isChecked()).toBe(true);
    expect(await page.getByTestId("rule-1-device-android").isChecked()).toBe(false);
    expect(await value(page, "rule-1-url")).toBe("https://example.com/ios");
    expect([await value(page, "variant-0-weight"), await value(page, "variant-1-weight")]).toEqual(["50", "50"]);
    expect(await value(page, "variant-1-url")).toBe("https://example.com/home-b");
  });

  it("tests visits: which destination answers and why", async () => {
    const page = fixture.browser.page;
    await page.goto(`/app/links/${linkId}/edit`);
    await page.getByTestId("visit-device").selectOption("ios");
    await page.getByTestId("visit-run").click();
    await expect.poll(() => page.getByTestId("visit-answer").getAttribute("data-destination")).toBe("rule:2");
    expect(await page.getByTestId("visit-destination").textContent()).toBe("Rule 2");
    expect(await page.getByTestId("visit-url").textContent()).toBe("https://example.com/ios");
    expect(await page.getByTestId("visit-reason").textContent()).not.toBe("");

    // From France on a desktop: this server knows no visitor's country (no GEOIP_DB, no trusted header), so the
    // country rule never holds, the split decides, and the form says why.
    await page.getByTestId("visit-device").selectOption("desktop");
    await page.getByTestId("visit-country").fill("fr");
    await page.getByTestId("visit-run").click();
    await expect.poll(() => page.getByTestId("visit-answer").getAttribute("data-destination")).toMatch(/^variant:[12]$/);
    expect(await page.getByTestId("visit-variants").locator("li").allTextContents()).toEqual([
      "Variant A · 50% · https://example.com/home",
      "Variant B · 50% · https://example.com/home-b",
    ]);
    expect(await page.getByTestId("visit-country-warning").textContent()).toContain("GEOIP_DB");
    await shots(page, "targeting-test-visit");
  });

  it("shows where real visits went in the statistics' Destinations panel", async () => {
    const page = fixture.browser.page;
    for (let i = 0; i < 2; i++) expect(await visit(fixture.server.url, `/${alias}`, { "user-agent": UA.iphone })).toBe(302);
    for (let i = 0; i < 10; i++) expect(await visit(fixture.server.url, `/${alias}`, { "user-agent": UA.windows })).toBe(302);
    await fixture.server.ctx.clicks.flush();

    await page.goto(`/app/links/${linkId}/stats`);
    await page.getByTestId("destinations-panel").waitFor();
    expect(await page.getByTestId("destination-rule:2").getAttribute("data-clicks")).toBe("2");
    expect(await page.getByTestId("destination-rule:2").textContent()).toContain("https://example.com/ios");
    const variants = await page.locator('[data-testid^="destination-variant:"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-clicks"))));
    expect(variants.reduce((a, b) => a + b, 0)).toBe(10);
    expect(await page.getByTestId("variants-chart").locator(".dest-series").count()).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    const todays = await page
      .locator(`[data-testid="variants-chart"] circle[data-date="${today}"]`)
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-clicks"))));
    expect(todays.reduce((a, b) => a + b, 0)).toBe(10);
    await shots(page, "targeting-stats");
  });

  it("shows a Free user the plan gate instead of rules and splits", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, free.email, password);
    await page.goto("/app/links/new");
    // Rules and splits are named in the builder's one plan note, and not offered.
    expect(await page.getByTestId("form-plan-note").textContent()).toContain(
      "Redirect rules and A/B splits and conversion tracking: on the Business plan and above.",
    );
    expect(await page.getByTestId("rule-add").count()).toBe(0);
    expect(await page.getByTestId("split-add").count()).toBe(0);
    await page.getByTestId("link-url").fill("https://example.com/free");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    await page.getByTestId("created-edit").click();
    await page.getByTestId("link-form").waitFor();
    expect(await page.getByTestId("rules-section").count()).toBe(0);
    expect(await page.getByTestId("test-visit").count()).toBe(0);
    await shots(page, "targeting-gate");
  });
});
