// Browser test of the link pages: anonymous shortening, create, list, stats, edit, bulk, API keys, delete, plan hints.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, signInPage, startBrowserFixture, screenshot, type BrowserFixture, type BrowserSession } from "./browser.js";
import type { TestServer } from "../helpers/server.js";

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const available = browserAvailable();

describe.skipIf(!available)("link pages in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const password = "business-password-1";
  const business = `biz-${Date.now()}@example.com`;
  const free = `free-${Date.now()}@example.com`;
  const alias = `e2e${Date.now().toString(36)}`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    ({ server, browser } = fixture);
    await server.ctx.accounts.create({ email: business, password, plan: "business", verified: true });
    await server.ctx.accounts.create({ email: free, password, plan: "free", verified: true });
  });

  afterAll(async () => {
    await fixture?.close();
  });

  const signIn = (email: string) => signInPage(browser.page, email, password);

  it("shortens a link signed out, with a copy button and a QR code", async () => {
    const page = browser.page;
    await page.goto("/");
    await page.getByTestId("anon-notice").waitFor();
    expect(await page.getByTestId("anon-notice").textContent()).toMatch(/five minutes/);
    await page.getByLabel("Long URL").fill("https://example.com/landing");
    await page.getByTestId("home-submit").click();
    const shortUrl = (await page.getByTestId("short-url").textContent()) ?? "";
    expect(shortUrl.startsWith(server.url + "/")).toBe(true);
    await page.getByTestId("copy-button").waitFor();
    const qrLoaded = await page.getByTestId("qr-image").evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) await new Promise((r) => img.addEventListener("load", r, { once: true }));
      return img.naturalWidth > 0;
    });
    expect(qrLoaded).toBe(true);
    await screenshot(page, "e2e-links-01-home-created");

    await page.getByLabel("Long URL").fill("not a url");
    await page.getByTestId("home-submit").click();
    await page.getByTestId("home-url-error").waitFor();
  });

  it("creates a link from /app/links/new and lists it", async () => {
    const page = browser.page;
    await signIn(business);
    await page.getByTestId("nav-new-link").click();
    await page.getByLabel("Destination URL").fill("https://example.com/e2e-destination");
    await page.getByLabel("Alias (optional)").fill(alias);
    await page.getByTestId("option-limits-toggle").click();
    await page.getByLabel("Maximum clicks").fill("100");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("short-url").textContent()).toBe(`${server.url}/${alias}`);

    await page.getByTestId("nav-dashboard").click();
    const row = page.getByTestId("link-row").filter({ hasText: alias });
    await row.waitFor();
    expect(await row.getByTestId("link-clicks").textContent()).toMatch(/^0 clicks$/);

    // The same alias again is refused beside the field.
    await page.goto("/app/links/new");
    await page.getByLabel("Destination URL").fill("https://example.com/other");
    await page.getByLabel("Alias (optional)").fill(alias);
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-alias-error").waitFor();
  });

  it("shows statistics with a daily chart after visits", async () => {
    const page = browser.page;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/${alias}`, {
        redirect: "manual",
        headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36" },
      });
      expect(res.status).toBe(302);
    }
    await page.goto("/app");
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-menu").click();
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-stats").click();
    await page.getByTestId("clicks-note").waitFor();
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByTestId("total-clicks").waitFor();
          return Number(await page.getByTestId("total-clicks").textContent());
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBeGreaterThanOrEqual(3);
    await page.getByTestId("series-chart").waitFor();
    expect(await page.getByTestId("clicks-note").textContent()).toContain("Clicks count requests, not people");
    await page.getByTestId("breakdown-browsers").waitFor();
    await page.getByTestId("preset-7d").click();
    await page.waitForURL(/range=7d/);
    // The chart re-renders once the 7-day answer arrives.
    await expect.poll(() => page.getByTestId("series-chart").locator("g.point").count(), { timeout: 10_000 }).toBe(7);
    expect(await page.getByTestId("stats-csv").getAttribute("href")).toMatch(/\/stats\.csv\?range=7d&tz=UTC$/);
    await screenshot(page, "e2e-links-02-stats");
  });

  it("edits a link: new destination, limit cleared, password added", async () => {
    const page = browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-menu").click();
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-edit").click();
    await expect.poll(() => page.getByLabel("Destination URL").inputValue()).toBe("https://example.com/e2e-destination");
    expect(await page.getByLabel("Maximum clicks").inputValue()).toBe("100");
    await page.getByLabel("Destination URL").fill("https://example.com/e2e-changed");
    await page.getByLabel("Maximum clicks").fill("");
    await page.getByTestId("option-password-toggle").click();
    await page.getByLabel("Link password (optional)").fill("visitor-secret");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    await page.getByTestId("link-remove-password").waitFor();
    const link = (await page.evaluate(async (a) => {
      const r = await fetch("/api/links?q=" + a, { credentials: "same-origin" });
      return (await r.json()).links[0];
    }, alias)) as { url: string; max_clicks: number | null; has_password: boolean };
    expect(link).toMatchObject({ url: "https://example.com/e2e-changed", max_clicks: null, has_password: true });
  });

  it("creates links in bulk with a result per line", async () => {
    const page = browser.page;
    await page.getByTestId("nav-bulk").click();
    await page.getByLabel(/One link per line/).fill("https://example.com/bulk-1\nnot a url\n\nhttps://example.com/bulk-2");
    await page.getByTestId("bulk-submit").click();
    const rows = page.getByTestId("bulk-result-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).getAttribute("class")).toContain("row-error");
    expect(await rows.nth(0).textContent()).toContain(server.url);
    await screenshot(page, "e2e-links-03-bulk");
  });

  it("uploads a profile picture and refuses a wrong file type", async () => {
    const page = browser.page;
    await page.getByTestId("nav-profile").click();
    await page.getByTestId("avatar-initials").waitFor();
    await page.getByTestId("picture-file").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
    await page.getByTestId("picture-error").waitFor();
    await page.getByTestId("picture-file").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: Buffer.from(PNG_1X1, "base64") });
    await page.getByTestId("picture-done").waitFor();
    const loaded = await page.getByTestId("avatar-image").evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) await new Promise((r) => img.addEventListener("load", r, { once: true }));
      return img.naturalWidth;
    });
    expect(loaded).toBe(1);
  });

  it("creates and revokes an API key on the Security page", async () => {
    const page = browser.page;
    await page.goto("/app/security");
    await page.getByLabel("New key name").fill("e2e server");
    await page.getByTestId("key-create").click();
    expect(await page.getByTestId("key-secret").textContent()).toMatch(/^snip_/);
    expect(await page.getByTestId("key-secret-box").textContent()).toMatch(/only once/);
    const row = page.getByTestId("key-row").filter({ hasText: "e2e server" });
    await row.waitFor();
    await screenshot(page, "e2e-links-04-security-key");
    await row.getByTestId("key-revoke").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await expect.poll(() => row.textContent()).toMatch(/Revoked/);
  });

  it("deletes a link after confirmation", async () => {
    const page = browser.page;
    await page.goto("/app");
    const row = page.getByTestId("link-row").filter({ hasText: alias });
    await row.getByTestId("link-menu").click();
    await row.getByTestId("link-delete").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await row.waitFor({ state: "detached" });
    const res = await fetch(`${server.url}/${alias}`, { redirect: "manual" });
    expect(res.status).toBe(404);
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  });

  it("shows upgrade hints to a free account", async () => {
    const page = browser.page;
    await signIn(free);
    await page.goto("/app/links/new");
    // The builder lists what the plan lacks in its one note, and offers none of those fields.
    await page.getByTestId("form-plan-note").waitFor();
    expect(await page.getByTestId("form-plan-note").textContent()).toContain("Expiry dates, start dates, click limits");
    expect(await page.getByLabel("Expires at").count()).toBe(0);
    expect(await page.getByLabel("Maximum clicks").count()).toBe(0);
    await page.goto("/app/links/bulk");
    await page.getByTestId("bulk-upgrade").waitFor();
    expect(await page.getByTestId("bulk-form").count()).toBe(0);
    await page.goto("/app/profile");
    expect(await page.getByTestId("cancel-subscription").isDisabled()).toBe(true);
    await page.goto("/app/nowhere");
    await page.getByTestId("not-found").waitFor();
  });
});
