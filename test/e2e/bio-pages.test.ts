// Bio pages (docs/bio-pages.md) in real Chromium: the editor builds a page (title, blocks added and moved, a button to
// one of the account's links) and its phone-sized preview follows every keystroke; the published page renders with the
// button to the link's short URL; owner's colours too faint to read are drawn black or white, the editor saying so;
// list, editor and public page pass axe in light and dark at a phone's width and a desktop's, with nothing wider than
// the screen. Screenshots in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SCHEMES_AND_WIDTHS,
  browserAvailable,
  launchBrowser,
  screenshot,
  screenshotModes,
  seriousAxeProblems,
  signInPage,
  type BrowserSession,
} from "./browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

const available = browserAvailable();
const EMAIL = "bio-e2e@example.com";

describe.skipIf(!available)("bio pages in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let shortUrl = "";

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await signedInClient(server, EMAIL, "pro");
    const link = await createLink(owner, { url: "https://shop.example.com/spring", title: "Spring sale" });
    shortUrl = `${server.ctx.config.origin}/${link.alias}`;
    browser = await launchBrowser({ baseURL: server.url });
    await signInPage(browser.page, EMAIL, "correct horse 1");
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("builds a page in the editor, the preview following, and publishes it", async () => {
    const page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto("/app/bio");
    await page.getByTestId("bio-empty").waitFor();
    await page.getByTestId("bio-new").click();
    await page.getByTestId("bio-form").waitFor();
    await page.getByTestId("bio-slug").fill("ada-links");
    await page.getByTestId("bio-title").fill("Ada <b>L</b>");
    await expect(page.getByTestId("bio-preview-title").textContent()).resolves.toBe("Ada <b>L</b>");
    await page.getByTestId("bio-description").fill("Maker and writer");
    await page.getByTestId("bio-add-heading").click();
    await page.locator("#bio-b0-text").fill("My shop");
    await page.getByTestId("bio-add-link").click();
    await page.getByTestId("bio-block-label").fill("Spring sale");
    await expect(page.getByTestId("bio-preview").getByText("Spring sale").isVisible()).resolves.toBe(true);
    // Moved above the heading: the preview's order follows.
    await page.getByRole("button", { name: "Move block 2 up" }).click();
    await expect(page.getByTestId("bio-preview").locator("li").first().textContent()).resolves.toBe("Spring sale");
    await page.getByTestId("bio-save").click();
    await page.getByTestId("bio-saved").waitFor();
    await page.waitForURL((u) => /^\/app\/bio\/[^/]+$/.test(u.pathname) && !u.pathname.endsWith("/new"));
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, "bio-editor-light-1280");

    const r = await page.goto("/ada-links");
    expect(r?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Ada <b>L</b>");
    await expect(page.getByRole("link", { name: "Spring sale" }).getAttribute("href")).resolves.toBe(shortUrl);
    expect(await page.locator("script").count()).toBe(0);
  });

  it("draws owner's colours too faint to read in black or white, says so in the editor, and the page passes axe", async () => {
    const page = browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto("/app/bio");
    await page.getByTestId("bio-row").first().getByRole("link").first().click();
    await page.getByTestId("bio-form").waitFor();
    await page.getByTestId("bio-theme").selectOption("custom");
    // Faint yellow on yellow, navy on navy.
    for (const [k, v] of Object.entries({ background: "#ffe14d", text: "#f5c400", button: "#1e3a8a", button_text: "#2b4aa0" }))
      await page.getByTestId(`bio-color-${k}`).fill(v);
    const note = page.getByTestId("bio-contrast-note");
    await expect(note.textContent()).resolves.toBe(
      "Text on the background: contrast 1.2:1, below the 4.5:1 people need to read it. Visitors see it in black." +
        "Button text on the button colour: contrast 1.2:1, below the 4.5:1 people need to read it. Visitors see it in white.",
    );
    const preview = page.getByTestId("bio-preview");
    await expect(preview.getByTestId("bio-preview-title").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(0, 0, 0)");
    await expect(preview.getByText("Spring sale").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(255, 255, 255)");
    expect(await seriousAxeProblems(page)).toEqual([]);
    await page.getByTestId("bio-save").click();
    await page.getByTestId("bio-saved").waitFor();
    // From the top: a full-page shot of a page scrolled down draws the sticky bars where the window was.
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshotModes(page, "bio-editor-custom");
    expect((await page.goto("/ada-links"))?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 }).evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(0, 0, 0)");
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshotModes(page, "bio-public-custom");
    // Readable colours: no note, the owner's colours as given.
    await page.goBack();
    await page.getByTestId("bio-form").waitFor();
    await page.getByTestId("bio-color-text").fill("#3b2f00");
    await page.getByTestId("bio-color-button_text").fill("#ffffff");
    await expect(page.getByTestId("bio-contrast-note").count()).resolves.toBe(0);
    await page.getByTestId("bio-theme").selectOption("auto");
    await page.getByTestId("bio-save").click();
    await page.getByTestId("bio-saved").waitFor();
  });

  it.each(SCHEMES_AND_WIDTHS)("list, editor and public page pass axe in %s at %i px", async (scheme, width) => {
    const page = browser.page;
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/app/bio");
    await page.getByTestId("bio-row").first().waitFor();
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `bio-list-${scheme}-${width}`);
    await page.getByTestId("bio-row").first().getByRole("link").first().click();
    await page.getByTestId("bio-form").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `bio-editor-${scheme}-${width}`);
    expect((await page.goto("/ada-links"))?.status()).toBe(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshot(page, `bio-public-${scheme}-${width}`);
  });
});
