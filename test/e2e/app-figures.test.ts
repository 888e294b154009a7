// Browser test of a link's app figures (docs/deep-links.md, Store visits, installs and opens): the statistics page of
// a link with an app shows "Store visits, installs, opens" with the counts the API gives (two store visits, an
// install by click id, an open), axe finds no serious or critical violation in it (contrast among them) in light and
// dark; a link without an app has no such panel. Screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AxeBuilder } from "@axe-core/playwright";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";

const available = browserAvailable();
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

describe.skipIf(!available)("a link's app figures in the browser", () => {
  let f: BrowserFixture;
  const email = "app-figures-e2e@example.com";
  const password = "business-password-1";
  let appLink: { id: string };
  let plainLink: { id: string };

  beforeAll(async () => {
    f = await startBrowserFixture();
    const user = await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    appLink = await f.server.ctx.links.create(user, {
      url: "https://shop.example.com/spring",
      alias: "app-figures",
      app_ios_store_id: "389801252",
      app_android_package: "com.example.shop",
      app_path: "/spring",
    });
    plainLink = await f.server.ctx.links.create(user, { url: "https://shop.example.com/plain", alias: "app-figures-plain" });
    const visit = async (alias: string, ua: string) => {
      const res = await fetch(`${f.server.url}/${alias}`, { redirect: "manual", headers: { "user-agent": ua } });
      await res.text();
      return res.headers.get("location") ?? "";
    };
    await visit("app-figures", IPHONE);
    const play = new URL(await visit("app-figures", ANDROID));
    const clickId = new URLSearchParams(play.searchParams.get("referrer")!).get("snip_click_id")!;
    await visit("app-figures-plain", IPHONE);
    await f.server.ctx.clicks.flush();
    const key = await f.server.ctx.apiKeys.create(user, { name: "app", scopes: ["deeplinks:open"] });
    for (const body of [{ click_id: clickId }, { url: `${f.server.url}/app-figures` }]) {
      const res = await fetch(`${f.server.url}/api/deeplinks/open`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => f?.close());

  it("shows store visits, installs and opens for a link with an app, with no serious axe finding, light and dark", async () => {
    const page = f.browser.page;
    await signInPage(page, email, password);
    await page.goto(`/app/links/${appLink.id}/stats`);
    const panel = page.getByTestId("apps-panel");
    await panel.waitFor();
    expect(await panel.getByRole("heading").textContent()).toBe("Store visits, installs, opens");
    const values = async () => Promise.all(["store-visits", "installs", "opens"].map(async (k) => page.getByTestId(`apps-${k}`).getAttribute("data-value")));
    expect(await values()).toEqual(["2", "1", "1"]);
    expect(await page.getByTestId("apps-matches").textContent()).toContain("1 by click id");
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page }).include('[data-testid="apps-panel"]').withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      const problems = result.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${scheme} ${v.id}: ${v.nodes[0]?.target.join(" ")}`);
      expect(problems).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await panel.scrollIntoViewIfNeeded();
    await screenshotModes(page, "e2e-app-figures");
  });

  it("shows no app panel for a link without an app", async () => {
    const page = f.browser.page;
    await page.goto(`/app/links/${plainLink.id}/stats`);
    await page.getByTestId("total-clicks").waitFor();
    expect(await page.getByTestId("apps-panel").count()).toBe(0);
  });
});
