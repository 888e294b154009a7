// Browser test of passkeys: Chromium with a virtual authenticator (the DevTools protocol's WebAuthn domain) adds a
// passkey on the Security page, signs out, signs in with the passkey alone, and removes it with the password.
// WebAuthn needs a secure context: BASE_URL and the page are on http://localhost (127.0.0.1 would not be one
// for the RP ID, and the browser checks the page's origin against it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CDPSession } from "playwright-core";
import { join } from "node:path";
import { SHOTS, SHOTS_DIR, browserAvailable, ensureWebBuilt, launchBrowser, screenshotModes, signInPage, type BrowserSession } from "./browser.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";

const available = browserAvailable();

describe.skipIf(!available)("passkeys in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let cdp: CDPSession;
  let authenticatorId: string;
  let origin: string;
  const email = "passkey-e2e@example.com";
  const password = "passkey-password-1";

  beforeAll(async () => {
    await ensureWebBuilt();
    const port = await freePort();
    origin = `http://localhost:${port}`;
    server = await startTestServer({ env: { PORT: String(port), BASE_URL: origin } });
    await server.ctx.accounts.create({ email, password, plan: "free", verified: true });
    browser = await launchBrowser({ baseURL: origin });
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

  it("adds a passkey on the Security page: a discoverable credential for localhost", async () => {
    await signInPage(page(), email, password);
    await page().goto("/app/security");
    const section = page().getByTestId("section-passkeys");
    await section.getByTestId("passkeys-empty").waitFor();
    await page().getByTestId("passkey-name").fill("Test laptop");
    await page().getByTestId("passkey-add").click();
    await page().getByTestId("passkey-added").waitFor();
    const rows = page().getByTestId("passkey-row");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator("td").first().textContent()).toBe("Test laptop");
    expect(await page().getByTestId("passkey-last-used").textContent()).toBe("Never");

    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe("localhost");
    const stored = await server.ctx.storage.db.selectFrom("passkeys").selectAll().execute();
    expect(stored.map((p) => [p.name, p.credential_id])).toEqual([
      ["Test laptop", credentials[0]!.credentialId.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")],
    ]);
    await screenshotModes(page(), "e2e-passkeys-security");
    // The part itself, close up, at the narrow width in both themes (a full Security page is tall).
    await page().setViewportSize({ width: 390, height: 900 });
    for (const scheme of ["light", "dark"] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      if (SHOTS) await section.screenshot({ path: join(SHOTS_DIR, `e2e-passkeys-section-390-${scheme}.png`) });
    }
    await page().emulateMedia({ colorScheme: "light" });
    await page().setViewportSize({ width: 1280, height: 900 });
  });

  it("signs out and signs in with the passkey alone", async () => {
    await page().getByTestId("sign-out").click();
    await page().getByTestId("nav-login").waitFor();
    await page().goto("/app/login");
    await page().getByTestId("passkey-signin").waitFor();
    await screenshotModes(page(), "e2e-passkeys-login");
    await page().getByTestId("passkey-signin").click();
    await page().waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page().getByTestId("user-email").textContent()).toBe(email);
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials[0]!.signCount).toBeGreaterThanOrEqual(1);

    await page().goto("/app/security");
    await expect.poll(() => page().getByTestId("passkey-last-used").textContent()).not.toBe("Never");
  });

  it("removes the passkey only with the right password; it then signs no one in", async () => {
    await page().getByTestId("passkey-remove").click();
    // The Security page has several confirmation dialogs: the open one.
    const dialog = page().locator("dialog[open]");
    await dialog.getByTestId("passkey-remove-password").fill("not-the-password");
    await dialog.getByTestId("confirm-ok").click();
    await expect.poll(() => dialog.textContent()).toContain("is not your current password");
    await screenshotModes(page(), "e2e-passkeys-remove");
    await dialog.getByTestId("passkey-remove-password").fill(password);
    await dialog.getByTestId("confirm-ok").click();
    await page().getByTestId("passkeys-empty").waitFor();
    expect(await server.ctx.storage.db.selectFrom("passkeys").selectAll().execute()).toEqual([]);

    // The authenticator still holds the credential; the server no longer knows it.
    await page().getByTestId("sign-out").click();
    await page().getByTestId("nav-login").waitFor();
    await page().goto("/app/login");
    await page().getByTestId("passkey-signin").click();
    await expect.poll(() => page().getByTestId("passkey-signin-error").textContent()).toContain("not registered here");
    expect(new URL(page().url()).pathname).toBe("/app/login");
  });
});
