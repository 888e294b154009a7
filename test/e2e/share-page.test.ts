// The shared statistics page (docs/sharing.md) in real Chromium: with figures in every panel, axe finds no serious or
// critical violation (contrast among them) in light and dark at a phone's width and a desktop's, nothing is wider
// than the screen, and the range links switch the period; the password form too. Screenshots in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMES_AND_WIDTHS, browserAvailable, launchBrowser, screenshot, seriousAxeProblems, type BrowserSession } from "./browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { UA, visit } from "../helpers/visit.js";

const available = browserAvailable();

describe.skipIf(!available)("the shared statistics page", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let path = "";
  let locked = "";

  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "true" } });
    const owner = await signedInClient(server, "share-page@example.com", "business");
    const link = await createLink(owner, { url: "https://shop.example.com/spring", title: "Spring sale" });
    const agents = [UA.iphone, UA.windows, UA.android, UA.ipad];
    const countries = ["DE", "FR", "US", "JP", "BR"];
    for (let i = 0; i < 40; i++) {
      await visit(server.url, `/${link.alias}`, {
        "user-agent": agents[i % agents.length]!,
        "cf-ipcountry": countries[i % countries.length]!,
        referer: i % 3 === 0 ? "https://news.example.org/" : "https://social.example.com/post",
      });
    }
    await server.ctx.clicks.writeBuffered();
    const made = await owner.post("/api/shares", { link_id: link.id });
    path = new URL(made.body.url as string).pathname;
    locked = new URL((await owner.post("/api/shares", { link_id: link.id, password: "open sesame" })).body.url as string).pathname;
    browser = await launchBrowser({ baseURL: server.url });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(SCHEMES_AND_WIDTHS)("passes axe in %s at %i px", async (scheme, width) => {
    const page = browser.page;
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    expect((await page.goto(path))?.status()).toBe(200);
    await expect(page.getByText("40", { exact: true }).first().isVisible()).resolves.toBe(true);
    await expect(page.getByRole("cell", { name: "Germany" }).isVisible()).resolves.toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `share-page-${scheme}-${width}`);
  });

  it("switches the period with its links, and asks for the password of a protected share", async () => {
    const page = browser.page;
    await page.goto(path);
    await page.getByRole("link", { name: "7 days" }).click();
    await page.waitForURL((u) => u.search === "?range=7d");
    await expect(page.getByRole("link", { name: "7 days" }).getAttribute("aria-current")).resolves.toBe("page");
    await page.goto(locked);
    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Show the statistics" }).click();
    await page.waitForURL((u) => u.pathname === locked);
    await expect(page.getByText("40", { exact: true }).first().isVisible()).resolves.toBe(true);
    expect(await seriousAxeProblems(page)).toEqual([]);
  });
});
