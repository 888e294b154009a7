// The page an iPhone visitor in an in-app browser gets for a link with open_outside (docs/deep-links.md): axe finds
// no serious or critical violation (contrast among them) in light and in dark, at a phone's width and a desktop's,
// in real Chromium; screenshots in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMES_AND_WIDTHS, browserAvailable, launchBrowser, screenshot, seriousAxeProblems, type BrowserSession } from "./browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { IN_APP } from "../helpers/in-app-agents.js";

const available = browserAvailable();
const INSTAGRAM_IOS = IN_APP.find(([app, os]) => app === "instagram" && os === "ios")![2];

describe.skipIf(!available)("the in-app browser page", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let alias = "";

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await signedInClient(server, "in-app-page@example.com", "free");
    alias = (await createLink(owner, { url: "https://shop.example.com/spring-sale?ref=poster", app_ios_store_id: "389801252", open_outside: true })).alias;
    browser = await launchBrowser({ baseURL: server.url });
    await browser.page.setExtraHTTPHeaders({ "user-agent": INSTAGRAM_IOS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(SCHEMES_AND_WIDTHS)("passes axe in %s at %i px", async (scheme, width) => {
    const page = browser.page;
    await page.setViewportSize({ width, height: 844 });
    await page.emulateMedia({ colorScheme: scheme });
    const res = await page.goto(`/${alias}`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("link", { name: "Open in Safari" }).getAttribute("href")).resolves.toBe(
      "x-safari-https://shop.example.com/spring-sale?ref=poster",
    );
    await expect(page.getByRole("link", { name: "Open the app" }).getAttribute("href")).resolves.toBe("https://apps.apple.com/app/id389801252");
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `in-app-page-${scheme}-${width}`);
  });
});
