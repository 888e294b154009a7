// Browser test of the QR design panel: colours change the preview, too little contrast and a light code on a
// dark ground are shown at the field (downloads off meanwhile), margin and level change the drawing, the logo
// with and without a profile picture, on the link's page (in its QR dialog) and in the list's dialog; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { solidPicture } from "../helpers/qr-images.js";

const available = browserAvailable();

interface Preview {
  /** Modules across, quiet zone included. */
  modules: number;
  /** Colours of the pixels the preview shows, most frequent first. */
  colours: string[];
  /** The colour at its centre. */
  centre: string;
}

/** What the preview image shows, read back from its pixels. */
function readPreview(page: Page): Promise<Preview> {
  return page
    .getByTestId("qr-image")
    .last()
    .evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) await new Promise((r) => img.addEventListener("load", r, { once: true }));
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const g = canvas.getContext("2d") as CanvasRenderingContext2D;
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
      const hex = (i: number) => `#${[data[i], data[i + 1], data[i + 2]].map((c) => (c as number).toString(16).padStart(2, "0")).join("")}`;
      const counts = new Map<string, number>();
      for (let i = 0; i < data.length; i += 4) counts.set(hex(i), (counts.get(hex(i)) ?? 0) + 1);
      const mid = (Math.floor(canvas.height / 2) * canvas.width + Math.floor(canvas.width / 2)) * 4;
      return { modules: Number(img.dataset.modules), colours: [...counts].sort((a, b) => b[1] - a[1]).map(([c]) => c), centre: hex(mid) };
    });
}

/** Polls the preview until `ok` holds for it, and returns it. */
async function previewWhere(page: Page, ok: (p: Preview) => boolean, what: string): Promise<Preview> {
  let last: Preview | null = null;
  for (let i = 0; i < 100; i++) {
    last = await readPreview(page).catch(() => null);
    if (last && ok(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`the preview never showed ${what}: ${JSON.stringify(last)}`);
}

/** The two main colours of the preview are these (modules and background, in either order). */
const showsColours = (a: string, b: string) => (p: Preview) => [a, b].every((c) => p.colours.slice(0, 2).includes(c));

describe.skipIf(!available)("QR code design in the browser", () => {
  let fixture: BrowserFixture;
  const email = `qr-${Date.now()}@example.com`;
  const password = "qr-design-password-1";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    await fixture.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
  });
  afterAll(async () => fixture?.close());

  it("colours, contrast errors at the field, margin, level, logo; downloads in the design", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email, password);
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://example.com/qr-design");
    await page.getByTestId("link-alias").fill("qr-design-e2e");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    const plain = await previewWhere(page, showsColours("#000000", "#ffffff"), "black on white");
    // The link's page opens the design panel in its QR dialog (the page's own code keeps the plain design).
    await page.getByTestId("link-page-qr-design").click();
    const panel = page.getByTestId("qr-dialog");
    await panel.getByTestId("qr-fg").waitFor();

    // A colour typed: the preview follows, and so do the downloads.
    await panel.getByTestId("qr-fg").fill("#1a2b3c");
    await previewWhere(page, showsColours("#1a2b3c", "#ffffff"), "#1a2b3c on white");
    expect(await panel.getByTestId("qr-svg").getAttribute("href")).toBe("/api/qr/qr-design-e2e?fg=1a2b3c");
    expect(await panel.getByTestId("qr-png").getAttribute("href")).toMatch(/^\/api\/qr\/qr-design-e2e\?fg=1a2b3c&format=png&size=\d+$/);

    // Too little contrast: the message at the field, downloads off, the last good preview kept.
    await panel.getByTestId("qr-bg").fill("#2a3b4c");
    await panel.getByTestId("qr-fg-error").waitFor();
    expect(await panel.getByTestId("qr-fg-error").textContent()).toBe("Too close to the background (contrast 1.2:1); scanners need at least 3:1");
    expect(await panel.getByTestId("qr-svg").count()).toBe(0);
    await panel.getByTestId("qr-downloads-off").waitFor();
    await page.waitForTimeout(400);
    expect(showsColours("#1a2b3c", "#ffffff")(await readPreview(page))).toBe(true);
    await screenshotModes(page, "qr-design-contrast");
    // Only the background changed from the default: its own field says so.
    await panel.getByTestId("qr-fg").fill("#000000");
    await panel.getByTestId("qr-bg").fill("#333333");
    expect(await panel.getByTestId("qr-bg-error").textContent()).toBe("Too close to the foreground (contrast 1.6:1); scanners need at least 3:1");
    // A light code on a dark ground.
    await panel.getByTestId("qr-fg").fill("#ffffff");
    await panel.getByTestId("qr-bg").fill("#000000");
    expect(await panel.getByTestId("qr-fg-error").textContent()).toBe(
      "Use a foreground darker than the background: many scanners cannot read light codes on a dark ground",
    );
    // The picker sets the same value as the text.
    await panel.getByTestId("qr-fg-picker").fill("#1a2b3c");
    expect(await panel.getByTestId("qr-fg").inputValue()).toBe("#1a2b3c");
    await panel.getByTestId("qr-bg").fill("#fff8e7");
    await previewWhere(page, showsColours("#1a2b3c", "#fff8e7"), "#1a2b3c on #fff8e7");
    expect(await panel.getByTestId("qr-fg-error").count()).toBe(0);

    // Margin: the quiet zone in modules; the level: more modules.
    await panel.getByTestId("qr-margin").fill("6");
    await previewWhere(page, (p) => p.modules === plain.modules + 8, "a margin of 6");
    await panel.getByTestId("qr-margin").fill("11");
    expect(await panel.getByTestId("qr-margin-error").textContent()).toBe("Enter a whole number from 0 to 10");
    await panel.getByTestId("qr-margin").fill("2");
    await panel.getByTestId("qr-ecl").selectOption("H");
    await previewWhere(page, (p) => p.modules > plain.modules, "more modules at level H");

    // The logo without a profile picture: the plain code and a note; with one: drawn, level H at least.
    await panel.getByTestId("qr-ecl").selectOption("L");
    await panel.getByTestId("qr-logo").check();
    expect(await panel.getByTestId("qr-ecl").inputValue()).toBe("H");
    await panel.getByTestId("qr-logo-note").waitFor();
    expect(await panel.getByTestId("qr-logo-note").textContent()).toBe("You have no profile picture, so the code has no logo. Add a picture");
    const session = await (await page.request.get("/api/auth/session")).json();
    const put = await page.request.put("/api/profile/picture", {
      data: await solidPicture("#e11d48", "png"),
      headers: { "content-type": "image/png", "x-csrf-token": session.csrf_token },
    });
    expect(put.status()).toBe(200);
    // Off and on again (a design is drawn once it has stayed put for a moment).
    await panel.getByTestId("qr-logo").uncheck();
    await page.waitForTimeout(500);
    await panel.getByTestId("qr-logo").check();
    await previewWhere(page, (p) => p.centre === "#e11d48", "the picture in the centre");
    expect(await panel.getByTestId("qr-logo-note").count()).toBe(0);
    expect(await panel.getByTestId("qr-svg").getAttribute("href")).toBe("/api/qr/qr-design-e2e?fg=1a2b3c&bg=fff8e7&logo=1");
    const png = await page.request.get((await panel.getByTestId("qr-png").getAttribute("href")) as string);
    expect(png.status()).toBe(200);
    expect(png.headers()["qr-logo"]).toBe("drawn");

    // Phone width: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshotModes(page, "qr-design");
  });

  it("the list's QR dialog has the same panel", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    const row = page.getByTestId("link-row").first();
    await row.getByTestId("link-menu").click();
    await row.getByTestId("link-qr").click();
    const dialog = page.getByTestId("qr-dialog");
    await dialog.getByTestId("qr-image").waitFor();
    await dialog.getByTestId("qr-design-toggle").click();
    await dialog.getByTestId("qr-fg").fill("#0b3d2e");
    await previewWhere(page, showsColours("#0b3d2e", "#ffffff"), "#0b3d2e in the dialog");
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshotModes(page, "qr-design-dialog");
  });
});
