// Browser test of the SCIM section of the single sign-on page (docs/scim.md): the base URL, a token made and shown
// once (and working against /scim/v2), replaced (the old one refused), revoked, and the section's error state;
// screenshots at 1280 and 390 px in both themes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ApiClient } from "../helpers/client.js";

const available = browserAvailable();

describe.skipIf(!available)("SCIM provisioning on the single sign-on page", () => {
  let f: BrowserFixture;
  const users = (token: string) => fetch(`${f.server.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  beforeAll(async () => {
    f = await startBrowserFixture();
    await f.server.ctx.accounts.create({ email: "owner@scim-owner.test", password: "owner-password-1", plan: "enterprise", verified: true });
    const api = new ApiClient(f.server.url);
    expect((await api.login("owner@scim-owner.test", "owner-password-1")).status).toBe(200);
    const set = await api.put("/api/sso", {
      issuer: "https://93.184.215.14/",
      client_id: "scim-e2e",
      client_secret: "scim-e2e-secret",
      domains: ["scim-e2e.test"],
    });
    expect(set.status, set.text).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it("makes a token, shows it once, replaces and revokes it", async () => {
    const page = f.browser.page;
    await signInPage(page, "owner@scim-owner.test", "owner-password-1");
    await page.goto("/app/sso");
    const section = page.getByTestId("sso-scim");
    await section.waitFor();
    expect(await page.getByTestId("scim-base-url").textContent()).toBe(`${f.server.config.origin}/scim/v2`);
    expect(await page.getByTestId("scim-token-state").textContent()).toContain("No token yet");
    await screenshotModes(page, "e2e-sso-scim-01-empty");

    await page.getByTestId("scim-make").click();
    const first = (await page.getByTestId("scim-token").textContent()) as string;
    expect(first).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    expect(await page.getByTestId("scim-token-state").textContent()).toMatch(/^Token made /);
    expect(await users(first)).toBe(200);
    await screenshotModes(page, "e2e-sso-scim-02-made");

    // Shown once: after a reload only its date is there.
    await page.reload();
    await page.getByTestId("scim-token-state").waitFor();
    expect(await page.getByTestId("scim-token").count()).toBe(0);
    expect(await page.content()).not.toContain(first);

    await page.getByTestId("scim-replace").click();
    await screenshotModes(page, "e2e-sso-scim-03-replace-dialog");
    await page.getByRole("button", { name: "Replace", exact: true }).click();
    await page.getByTestId("scim-token").waitFor();
    const second = (await page.getByTestId("scim-token").textContent()) as string;
    expect(second).not.toBe(first);
    expect(await users(first)).toBe(401);
    expect(await users(second)).toBe(200);

    await page.getByTestId("scim-revoke").click();
    await page.getByRole("button", { name: "Revoke", exact: true }).click();
    await page.getByTestId("scim-notice").waitFor();
    expect(await users(second)).toBe(401);
    expect(await page.getByTestId("scim-token-state").textContent()).toContain("No token yet");
    expect(await page.getByTestId("scim-make").isVisible()).toBe(true);
    await screenshotModes(page, "e2e-sso-scim-04-revoked");
  });

  it("says so when the token's state cannot be read", async () => {
    const page = f.browser.page;
    await page.route("**/api/sso/scim-token", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ status: "error", code: "unavailable", message: "The service is temporarily unavailable" }),
      }),
    );
    await page.goto("/app/sso");
    await page.getByTestId("scim-load-error").waitFor();
    expect(await page.getByTestId("scim-load-error").textContent()).toContain("temporarily unavailable");
    await screenshotModes(page, "e2e-sso-scim-05-error");
    await page.unroute("**/api/sso/scim-token");
  });
});
