// Browser test of the one Security page: two-factor sign-in set up with a code computed from the shown key (and the
// second step at the next sign-in), a passkey added through Chromium's virtual authenticator, the sessions listed and
// another one signed out, an API key created (its secret shown once) and revoked, and the activity listing each of
// those; the navigation's "API keys" entry opening the page's #api-keys section. WebAuthn needs a secure context: the
// server and the page are on http://localhost. Screenshots at 1280 x 800 and 390 x 844, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CDPSession, Page } from "playwright-core";
import { SHOTS, SHOTS_DIR, browserAvailable, ensureWebBuilt, launchBrowser, screenshot, type BrowserSession } from "./browser.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient } from "../helpers/client.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";

const available = browserAvailable();
const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SECTIONS = ["section-2fa", "section-passkeys", "section-sessions", "section-keys", "section-activity"];

/** The page at the two widths the house rules name, light and dark: SHOTS_DIR/<name>-<width>-<scheme>.png. */
async function shots(page: Page, name: string, fullPage = true): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await screenshot(page, `${name}-${width}-${scheme}`, fullPage);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe.skipIf(!available)("the Security page in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let cdp: CDPSession;
  let authenticatorId: string;
  const email = `e2e-security-${Date.now()}@example.com`;
  const password = "e2e-password-2fa";
  let secret = "";
  let recovery: string[] = [];
  let other: ApiClient;

  beforeAll(async () => {
    await ensureWebBuilt();
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    server = await startTestServer({ env: { PORT: String(port), BASE_URL: origin } });
    await server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    browser = await launchBrowser({ baseURL: origin, viewport: { width: 1280, height: 800 } });
    cdp = await browser.context.newCDPSession(browser.page);
    await cdp.send("WebAuthn.enable");
    const added = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    authenticatorId = added.authenticatorId;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const page = () => browser.page;

  it("shows every section in order: two-factor sign-in, passkeys, sessions, API keys, recent activity; the profile links here", async () => {
    await page().goto("/app/login");
    await page().getByLabel("Email").fill(email);
    await page().getByLabel("Password").fill(password);
    await page().getByTestId("login-submit").click();
    await page().waitForURL((u) => u.pathname === "/app");
    await page().goto("/app/profile");
    await page().getByTestId("section-password").waitFor();
    // The profile keeps the account; how it signs in moved to Security.
    expect(await page().getByTestId("section-keys").count()).toBe(0);
    expect(await page().getByTestId("section-passkeys").count()).toBe(0);
    await page().getByTestId("profile-security").click();
    await page().waitForURL((u) => u.pathname === "/app/security");
    await page().getByTestId("2fa-start").waitFor();
    await page().getByTestId("keys-empty").waitFor();
    await page().getByTestId("passkeys-empty").waitFor();
    const order = await page().evaluate(() => [...document.querySelectorAll(".security-page > section")].map((s) => s.getAttribute("data-testid")));
    expect(order).toEqual(SECTIONS);
    // The API reference is one click from the keys.
    expect(await page().getByTestId("keys-api-docs").getAttribute("href")).toBe("/docs");
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
    await shots(page(), "security-00-fresh");
  });

  it("sets up two-factor sign-in with the QR code's key and a code computed from it; 10 recovery codes shown once", async () => {
    await page().getByTestId("2fa-start").click();
    const qr = page().getByTestId("totp-qr");
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    secret = (await page().getByTestId("totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shots(page(), "security-01-2fa-setup");
    await page()
      .getByTestId("totp-code")
      .fill(totpCode(secretBytes(secret), Date.now()));
    await page().getByTestId("totp-enable").click();
    await page().getByTestId("recovery-codes").waitFor();
    recovery = await page().locator(".code-grid li code").allTextContents();
    expect(recovery).toHaveLength(10);
    expect(await page().getByTestId("2fa-on").textContent()).toContain("10 recovery codes left");
  });

  it("signs out, and signs in again only with the second step's code", async () => {
    await page().getByTestId("sign-out").click();
    await page().getByTestId("nav-login").waitFor();
    await page().goto("/app/login");
    await page().getByLabel("Email").fill(email);
    await page().getByLabel("Password").fill(password);
    await page().getByTestId("login-submit").click();
    await page().getByTestId("second-step-form").waitFor();
    expect(await page().evaluate(async () => (await (await fetch("/api/auth/session")).json()).user)).toBeNull();
    await shots(page(), "security-02-second-step");
    await page()
      .getByTestId("second-step-code")
      .fill("000000" === totpCode(secretBytes(secret), Date.now() + 30_000) ? "111111" : "000000");
    await page().getByTestId("second-step-submit").click();
    await page().getByTestId("second-step-error").first().waitFor();
    // One step ahead: never the step the enabling code used.
    await page()
      .getByTestId("second-step-code")
      .fill(totpCode(secretBytes(secret), Date.now() + 30_000));
    await page().getByTestId("second-step-submit").click();
    await page().waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page().getByTestId("user-email").textContent()).toBe(email);
  });

  it("adds a passkey on the Security page through the browser's prompt (a discoverable credential for localhost)", async () => {
    await page().goto("/app/security");
    const section = page().getByTestId("section-passkeys");
    await section.getByTestId("passkeys-empty").waitFor();
    await section.getByTestId("passkey-name").fill("Work laptop");
    await section.getByTestId("passkey-add").click();
    await page().getByTestId("passkey-added").waitFor();
    await expect.poll(() => section.getByTestId("passkey-row").count()).toBe(1);
    expect(await section.getByTestId("passkey-row").locator("td").first().textContent()).toBe("Work laptop");
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials.map((c) => [c.rpId, c.isResidentCredential])).toEqual([["localhost", true]]);
    expect((await server.ctx.storage.db.selectFrom("passkeys").select("name").execute()).map((p) => p.name)).toEqual(["Work laptop"]);
  });

  it("lists the sessions (another browser signed in with a recovery code) and signs that one out", async () => {
    other = new ApiClient(server.url);
    await other.request("GET", "/api/auth/session", undefined, { "user-agent": FIREFOX_WINDOWS });
    const first = await other.request("POST", "/api/auth/login", { email, password }, { "user-agent": FIREFOX_WINDOWS });
    expect(first.body.status).toBe("2fa_required");
    const second = await other.request("POST", "/api/auth/2fa/verify", { recovery_code: recovery[0] }, { "user-agent": FIREFOX_WINDOWS });
    expect(second.status).toBe(200);
    expect((await other.get("/api/profile")).status).toBe(200);

    await page().reload();
    const rows = page().getByTestId("session-row");
    await expect.poll(() => rows.count()).toBe(2);
    const firefox = rows.filter({ hasText: "Firefox" });
    expect(await firefox.textContent()).toContain("Firefox on Windows");
    expect(await firefox.getByTestId("session-current").count()).toBe(0);
    expect(await rows.filter({ has: page().getByTestId("session-current") }).count()).toBe(1);
    await firefox.getByTestId("session-sign-out").click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page().getByTestId("section-sessions").getByTestId("alert-success").textContent()).toBe("That session is signed out.");
    expect((await other.get("/api/profile")).status).toBe(401);
  });

  it("creates an API key (its secret shown once) and revokes it", async () => {
    const section = page().getByTestId("section-keys");
    await section.getByTestId("key-name").fill("Deploy bot");
    await section.getByTestId("key-scope-links:read").check();
    await section.getByTestId("key-create").click();
    await section.getByTestId("key-secret-box").waitFor();
    const key = (await section.getByTestId("key-secret").textContent()) ?? "";
    expect(key).toMatch(/^snip_[A-Za-z0-9_-]{43}$/);
    // The key reads the account's links (its links:read scope) until it is revoked.
    const use = () => fetch(`${server.url}/api/external/links`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect(await use()).toBe(200);
    const row = section.getByTestId("key-row").filter({ hasText: "Deploy bot" });
    await row.waitFor();
    await section.getByRole("button", { name: "I have stored it, hide it" }).click();
    expect(await section.getByTestId("key-secret-box").count()).toBe(0);
    expect(await section.textContent()).not.toContain(key);
    await row.getByTestId("key-revoke").click();
    await page().locator("dialog[open]").getByTestId("confirm-ok").click();
    await expect.poll(() => row.textContent()).toMatch(/Revoked/);
    expect(await use()).toBe(401);
  });

  it("the recent activity lists each of those events, newest first", async () => {
    await page().reload();
    const rows = page().getByTestId("activity-row");
    await rows.first().waitFor();
    const kinds = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    // Newest first: the key revoked, then created, the other session signed out, the passkey, the 2FA, the sign-ins.
    const order = ["api_key_revoked", "api_key_created", "session_revoked", "passkey_added", "2fa_enabled"];
    const at = order.map((k) => kinds.indexOf(k));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(kinds.filter((k) => k === "sign_in").length).toBeGreaterThanOrEqual(3);
    const texts = await rows.allTextContents();
    expect(texts.some((t) => t.includes("API key “Deploy bot” revoked"))).toBe(true);
    expect(texts.some((t) => t.includes("Passkey “Work laptop” added"))).toBe(true);
    expect(texts.some((t) => t.includes("Two-factor sign-in turned on"))).toBe(true);
    await shots(page(), "security-03-every-section");
  });

  it('the navigation\'s "API keys" opens the Security page at its API keys section, focused and in view, on a desktop and a phone', async () => {
    await page().goto("/app");
    await page().getByTestId("nav-api-keys").click();
    await page().waitForURL((u) => u.pathname === "/app/security" && u.hash === "#api-keys");
    const keys = page().getByTestId("section-keys");
    await keys.getByTestId("key-row").first().waitFor();
    await expect.poll(() => page().evaluate(() => document.activeElement?.id)).toBe("api-keys");
    const inView = () => keys.evaluate((el) => Math.round(el.getBoundingClientRect().top));
    // Below the sticky top bar, at the window's top, once the sections above have loaded.
    await expect.poll(inView).toBeLessThanOrEqual(100);
    expect(await inView()).toBeGreaterThanOrEqual(0);
    expect(await page().getByTestId("nav-api-keys").getAttribute("aria-current")).toBe("page");
    expect(await page().getByTestId("nav-security").getAttribute("aria-current")).toBeNull();
    await screenshot(page(), "security-04-nav-api-keys-1280", false);
    // "Security" is the page's own entry again without the section.
    await page().getByTestId("nav-security").click();
    await page().waitForURL((u) => u.pathname === "/app/security" && u.hash === "");
    expect(await page().getByTestId("nav-security").getAttribute("aria-current")).toBe("page");
    expect(await page().getByTestId("nav-api-keys").getAttribute("aria-current")).toBeNull();

    // On a phone, from the page itself: only the #section changes, and the menu still closes.
    await page().setViewportSize({ width: 390, height: 844 });
    await page().evaluate(() => window.scrollTo(0, 0));
    await page().getByTestId("menu-toggle").click();
    await page().getByTestId("nav-api-keys").click();
    await page().getByTestId("sidebar").waitFor({ state: "hidden" });
    await expect.poll(() => page().evaluate(() => document.activeElement?.id)).toBe("api-keys");
    await expect.poll(inView).toBeLessThanOrEqual(100);
    expect(await inView()).toBeGreaterThanOrEqual(0);
    for (const scheme of ["light", "dark"] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      if (SHOTS) await page().screenshot({ path: `${SHOTS_DIR}/security-05-nav-api-keys-390-${scheme}.png` });
    }
    await page().emulateMedia({ colorScheme: "light" });
    await page().setViewportSize({ width: 1280, height: 800 });
  });
});
