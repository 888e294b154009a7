// Browser test of the Live page: the plan gate for Pro, then for Business the empty state, real visits
// appearing newest on top within a second (a QR scan marked), and the reconnecting state when the server
// ends the stream; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, signInPage, startBrowserFixture, screenshotModes, type BrowserFixture, type BrowserSession } from "./browser.js";
import type { TestServer } from "../helpers/server.js";
import { UA, visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";

const available = browserAvailable();

describe.skipIf(!available)("live page in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const password = "live-password-1";
  const business = `live-biz-${Date.now()}@example.com`;
  const pro = `live-pro-${Date.now()}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture({ env: { TRUST_PROXY: "true" } });
    ({ server, browser } = fixture);
    await server.ctx.accounts.create({ email: pro, password, plan: "pro", verified: true });
    const user = await server.ctx.accounts.create({ email: business, password, plan: "business", verified: true });
    await server.ctx.links.create(user, { url: "https://example.com/spring", alias: "spring-sale" });
    await server.ctx.links.create(user, { url: "https://example.com/poster", alias: "poster" });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("shows Pro the plan it needs instead of the feed", async () => {
    const page = browser.page;
    await signInPage(page, pro, password);
    expect(await page.getByTestId("nav-live").getByTestId("plan-mark-account_analytics").textContent()).toBe("Business");
    await page.getByTestId("nav-live").click();
    await page.getByTestId("live-gate").waitFor();
    expect(await page.getByTestId("live-gate").textContent()).toContain("on the Business plan and above");
    expect(await page.getByTestId("live-status").count()).toBe(0);
    await screenshotModes(page, "live-gate");
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  });

  it("waits for clicks, then lists real visits newest on top within a second", async () => {
    const page = browser.page;
    await signInPage(page, business, password);
    await page.getByTestId("nav-live").click();
    await page.getByTestId("live-empty").waitFor();
    await waitFor(async () => (await page.getByTestId("live-status").getAttribute("data-state")) === "live", { what: "the feed to be live" });
    expect(await page.getByTestId("live-empty").textContent()).toContain("Waiting for clicks…");
    await screenshotModes(page, "live-empty");

    const visits: Array<[string, Record<string, string>]> = [
      ["/spring-sale", { "user-agent": UA.windows, referer: "https://news.example.org/story", "cf-ipcountry": "DE" }],
      ["/spring-sale", { "user-agent": UA.android, referer: "https://t.co/abc", "cf-ipcountry": "BR" }],
      ["/poster?qr=1", { "user-agent": UA.iphone, "cf-ipcountry": "FR" }],
    ];
    for (const [path, headers] of visits) {
      const sent = Date.now();
      expect(await visit(server.url, path, headers)).toBe(302);
      const n = visits.findIndex((v) => v[0] === path && v[1] === headers) + 1;
      await waitFor(async () => (await page.getByTestId("live-row").count()) === n, { timeoutMs: 1_000, what: `row ${n} within a second` });
      expect(Date.now() - sent).toBeLessThan(1_000);
    }
    const rows = page.getByTestId("live-row");
    expect(await rows.getByTestId("live-alias").allTextContents()).toEqual(["poster", "spring-sale", "spring-sale"]);
    expect(await rows.getByTestId("live-source").allTextContents()).toEqual(["QR", "Link", "Link"]);
    expect(await rows.getByTestId("live-country").allTextContents()).toEqual(["FR", "BR", "DE"]);
    expect(await rows.getByTestId("live-referrer").allTextContents()).toEqual(["Direct", "t.co", "news.example.org"]);
    expect(await rows.getByTestId("live-device").allTextContents()).toEqual(["Mobile · Mobile Safari", "Mobile · Chrome", "Desktop · Chrome"]);
    await screenshotModes(page, "live-clicks");
  });

  it("says it is reconnecting when the stream ends, and is live again after", async () => {
    const page = browser.page;
    server.ctx.live.closeStreams();
    await page.getByTestId("live-reconnecting").waitFor();
    expect(await page.getByTestId("live-status").getAttribute("data-state")).toBe("reconnecting");
    // The rows stay while it reconnects.
    expect(await page.getByTestId("live-row").count()).toBe(3);
    await screenshotModes(page, "live-reconnecting");
    await waitFor(async () => (await page.getByTestId("live-status").getAttribute("data-state")) === "live", {
      timeoutMs: 10_000,
      what: "the feed to be live again",
    });
    expect(await page.getByTestId("live-reconnecting").count()).toBe(0);
  });
});
