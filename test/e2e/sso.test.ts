// Browser test of single sign-on: the sign-in page with the instance's "Sign in with …" button and the
// email-first entry (from the form's one email box, once a connection has a verified domain), an Enterprise owner's
// SSO page (set up, TXT record, verify), a person signing in through the real OpenID provider on loopback (its login
// and consent pages), the operator's list of connections, and a refused sign-in explained; screenshots at 1280 and 390 px in both themes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { TestDns } from "../helpers/dns.js";
import { freePort } from "../helpers/server.js";
import { TestOidc } from "../helpers/oidc.js";

const available = browserAvailable();
const SECRET = "e2e-enterprise-secret-0123456789";

describe.skipIf(!available)("single sign-on in the browser", () => {
  let dns: TestDns;
  let idp: TestOidc;
  let f: BrowserFixture;

  beforeAll(async () => {
    dns = await TestDns.start();
    const port = await freePort();
    f = await startBrowserFixture({
      env: {
        DNS_SERVERS: dns.address,
        WEBHOOK_ALLOW_PRIVATE: "true",
        OIDC_ISSUER: `http://127.0.0.1:${port}`,
        OIDC_CLIENT_ID: "snip-instance",
        OIDC_CLIENT_SECRET: "instance-secret-0123",
        OIDC_NAME: "Corp ID",
      },
    });
    const redirect = `${f.server.url}/api/auth/sso/callback`;
    idp = await TestOidc.start(port, [
      { client_id: "snip-ent", client_secret: SECRET, redirect_uris: [redirect] },
      { client_id: "snip-instance", client_secret: "instance-secret-0123", redirect_uris: [redirect] },
    ]);
    idp.accounts.set("alice", { email: "alice@acme.test", email_verified: true, name: "Alice" });
    await f.server.ctx.accounts.create({ email: "owner@owner.test", password: "owner-password-1", plan: "enterprise", verified: true });
    await f.server.ctx.accounts.create({ email: "op@ops.test", password: "operator-password-1", verified: true, admin: true });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await idp?.close();
    await dns?.close();
  });

  it("shows the instance's button on the sign-in page, and no email-first entry before a connection has a verified domain", async () => {
    const page = f.browser.page;
    await page.goto("/app/login");
    expect(await page.getByTestId("sso-instance").textContent()).toBe("Sign in with Corp ID");
    await page.getByTestId("login-email").waitFor();
    expect(await page.getByTestId("sso-continue").count()).toBe(0);
    expect(await page.locator('input[type="email"]').count()).toBe(1);
    await screenshotModes(page, "e2e-sso-01-sign-in");
    await page.goto("/app/login?sso_error=sso_failed&reason=email_unverified");
    expect(await page.getByTestId("sso-error").textContent()).toBe("Single sign-on failed: Your identity provider has not verified your email address.");
    await screenshotModes(page, "e2e-sso-02-refused");
  });

  it("lets an Enterprise owner set up SSO and verify a domain", async () => {
    const page = f.browser.page;
    await signInPage(page, "owner@owner.test", "owner-password-1");
    await page.getByTestId("nav-sso").first().click();
    await page.getByTestId("sso-form").waitFor();
    await screenshotModes(page, "e2e-sso-03-empty");
    await page.getByTestId("sso-issuer").fill(idp.issuer);
    await page.getByTestId("sso-client-id").fill("snip-ent");
    await page.getByTestId("sso-secret").fill(SECRET);
    await page.getByTestId("sso-domains-input").fill("acme.test");
    await page.getByTestId("sso-save").click();
    const row = page.locator('[data-testid="sso-domain"][data-domain="acme.test"]');
    await row.waitFor();
    expect(await row.getByTestId("sso-domain-status").textContent()).toBe("Pending");
    expect(await page.getByTestId("sso-secret").inputValue()).toBe("");
    const value = (await row.getByTestId("sso-record-value").textContent()) ?? "";
    expect(value).toMatch(/^snip-sso=\w{32}$/);
    expect(await page.content()).not.toContain(SECRET);
    await screenshotModes(page, "e2e-sso-04-pending");
    dns.txt("_snip-sso.acme.test", [value]);
    await row.getByTestId("sso-domain-verify").click();
    await row.getByTestId("sso-domain-status").filter({ hasText: "Verified" }).waitFor();
    await screenshotModes(page, "e2e-sso-05-verified");
    await page.goto("/app/logout");
    await page.waitForURL((u) => u.pathname === "/");
  });

  it("signs a person in through the provider's pages and lands on the dashboard", async () => {
    const page = f.browser.page;
    await page.goto("/app/login");
    // One email box: the sign-in form's, which "Continue with single sign-on" (now offered) reads.
    await page.getByTestId("login-email").fill("alice@acme.test");
    await page.getByTestId("sso-continue").click();
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill("alice");
    await page.locator('input[name="password"]').fill("anything");
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').last().click();
    await page.waitForURL((u) => u.origin === f.server.url && u.pathname === "/app");
    const session = await page.evaluate(() => fetch("/api/auth/session").then((r) => r.json()));
    expect(session.user.email).toBe("alice@acme.test");
    await page.goto("/app/logout");
    await page.waitForURL((u) => u.pathname === "/");
  });

  it("shows operators every connection", async () => {
    const page = f.browser.page;
    await signInPage(page, "op@ops.test", "operator-password-1");
    await page.goto("/app/admin/sso");
    await page.getByTestId("admin-sso-row").waitFor();
    expect(await page.getByTestId("admin-sso-row").count()).toBe(1);
    await screenshotModes(page, "e2e-sso-06-operator");
  });
});
