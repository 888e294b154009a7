// The "+" page (docs/api.md, Where a link goes) in real Chromium: axe finds no serious or critical violation
// (contrast among them, the warning of a destination that stopped answering too) in light and in dark, at a phone's
// width and a desktop's; nothing wider than the screen, however long the destination; the button goes on to the
// link. Screenshots in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMES_AND_WIDTHS, browserAvailable, launchBrowser, screenshot, seriousAxeProblems, type BrowserSession } from "./browser.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { type CheckingServer, startCheckingServer } from "../helpers/health-receivers.js";
import { ManualClock } from "../../src/shared/clock.js";

const available = browserAvailable();

describe.skipIf(!available)('the "+" page', () => {
  let checking: CheckingServer;
  let browser: BrowserSession;
  let alias = "";
  const clock = new ManualClock(Date.parse("2026-11-21T10:00:00Z"));

  beforeAll(async () => {
    checking = await startCheckingServer({ clock });
    const { server, dest } = checking;
    const owner = await signedInClient(server, "plus-page@example.com", "business");
    // A destination that stopped answering (404 three checks in a row): the page says so in its warning colour.
    const long = `${dest.origin}/spring-sale/${"very-long-path-segment-".repeat(12)}?utm_source=poster&utm_campaign=spring`;
    alias = (
      await createLink(owner, {
        url: long,
        title: "Spring sale: 30 % off everything",
        expires_at: "2099-06-01T00:00:00.000Z",
        ios_url: "https://apps.apple.com/app/id389801252",
        rules: [{ if: { country: ["DE", "AT"] }, url: "https://shop.example.de/fruehling" }],
      })
    ).alias;
    for (let i = 0; i < 3; i++) {
      await server.ctx.linkHealth.runNow();
      clock.advance(3_600_000);
    }
    browser = await launchBrowser({ baseURL: server.url });
  });
  afterAll(async () => {
    await browser?.close();
    await checking?.close();
  });

  it.each(SCHEMES_AND_WIDTHS)("passes axe in %s at %i px", async (scheme, width) => {
    const page = browser.page;
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const res = await page.goto(`/${alias}+`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "Where this link goes" }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole("link", { name: "Continue to the link" }).getAttribute("href")).resolves.toBe(`/${alias}`);
    const health = page.locator("[data-health]");
    expect(await health.textContent()).toBe("Not answering since 2026-11-21 12:00 UTC (checked 1 hour ago). 2 of the other destinations are not answering.");
    expect(await health.getAttribute("class")).toBe("warn");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBe(0);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `plus-page-${scheme}-${width}`);
  });
});
