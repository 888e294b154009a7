// Browser test of two-factor sign-in: set up on the Security page computing the code from the shown key,
// keep the recovery codes, sign out, sign in with the second step; the sessions list. Screenshots of the
// Security page and the second step at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture, type BrowserSession } from "./browser.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";
import type { TestServer } from "../helpers/server.js";

const available = browserAvailable();

describe.skipIf(!available)("two-factor sign-in in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const email = `e2e-2fa-${Date.now()}@example.com`;
  const password = "e2e-password-2fa";
  let secret = "";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    ({ server, browser } = fixture);
    await server.ctx.accounts.create({ email, password, verified: true });
  });
  afterAll(async () => fixture?.close());

  it("sets up TOTP on the Security page with the QR code and the key, and shows 10 recovery codes", async () => {
    const page = browser.page;
    await signInPage(page, email, password);
    await page.goto("/app/profile");
    await page.getByTestId("profile-security").click();
    await page.waitForURL((u) => u.pathname === "/app/security");
    await page.getByTestId("2fa-start").click();
    const qr = page.getByTestId("totp-qr");
    await qr.waitFor();
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await screenshotModes(page, "e2e-security-01-setup");
    await page.getByTestId("totp-code").fill(totpCode(secretBytes(secret), Date.now()));
    await page.getByTestId("totp-enable").click();
    await page.getByTestId("recovery-codes").waitFor();
    expect(await page.locator(".code-grid li").count()).toBe(10);
    await page.getByTestId("2fa-on").waitFor();
    expect(await page.getByTestId("2fa-on").textContent()).toContain("10 recovery codes left");
    expect(await page.getByTestId("session-row").count()).toBe(1);
    await page.getByTestId("session-current").waitFor();
    await screenshotModes(page, "e2e-security-02-enabled");
  });

  it("signs out, and signs in again only with the second step's code", async () => {
    const page = browser.page;
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
    await page.goto("/app/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByTestId("login-submit").click();
    await page.getByTestId("second-step-form").waitFor();
    // No session yet: the API says so.
    expect(await page.evaluate(async () => (await (await fetch("/api/auth/session")).json()).user)).toBeNull();
    await screenshotModes(page, "e2e-security-03-second-step");
    await page.getByTestId("second-step-code").fill("000000" === totpCode(secretBytes(secret), Date.now() + 30_000) ? "111111" : "000000");
    await page.getByTestId("second-step-submit").click();
    await page.getByTestId("second-step-error").first().waitFor();
    // One step ahead: never the step the enabling code used.
    await page.getByTestId("second-step-code").fill(totpCode(secretBytes(secret), Date.now() + 30_000));
    await page.getByTestId("second-step-submit").click();
    await page.waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page.getByTestId("user-email").textContent()).toBe(email);
  });
});
