// Browser test of the account flow: sign up, verify the email from the outbox, sign out and in, change the password.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, startBrowserFixture, screenshot, type BrowserFixture, type BrowserSession } from "./browser.js";
import { waitForLink } from "../helpers/mail.js";
import type { TestServer } from "../helpers/server.js";

const available = browserAvailable();

describe.skipIf(!available)("account flow in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const email = `e2e-${Date.now()}@example.com`;
  const firstPassword = "first-password-123";
  const secondPassword = "second-password-456";
  const thirdPassword = "third-password-789";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    ({ server, browser } = fixture);
  });

  afterAll(async () => {
    await fixture?.close();
  });

  async function signIn(password: string) {
    const page = browser.page;
    await page.goto("/app/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByTestId("login-submit").click();
  }

  async function signOut() {
    const page = browser.page;
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  }

  it("signs up on /app/signup and lands on the dashboard", async () => {
    const page = browser.page;
    await page.goto("/app/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(firstPassword);
    await page.getByTestId("signup-submit").click();
    await page.waitForURL(/\/app(\?.*)?$/);
    await expect.poll(() => page.getByTestId("user-email").textContent()).toBe(email);
    await page.getByRole("heading", { name: "Your links" }).waitFor();
    await screenshot(page, "e2e-account-01-dashboard-after-signup");
  });

  it("verifies the email with the link from the outbox", async () => {
    const page = browser.page;
    const link = await waitForLink(server.outboxDir, email, "/app/verify-email?token=");
    expect(new URL(link).origin).toBe(new URL(server.url).origin);
    await page.goto(link);
    const success = page.getByTestId("verify-success");
    await success.waitFor();
    expect(await success.textContent()).toMatch(/verified/i);
    await screenshot(page, "e2e-account-02-verified");

    await page.goto("/app/profile");
    await expect.poll(() => page.getByTestId("email-status").textContent()).toMatch(/verified/i);
    expect(await page.getByTestId("email-status").textContent()).not.toMatch(/not verified/i);
  });

  it("signs out and back in", async () => {
    const page = browser.page;
    await signOut();
    expect(new URL(page.url()).pathname).toBe("/");
    await page.getByTestId("anon-notice").waitFor();

    await page.goto("/app");
    await page.waitForURL(/\/app\/login/);
    await signIn(firstPassword);
    await page.waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page.getByTestId("user-email").textContent()).toBe(email);
  });

  it("changes the password on the profile page", async () => {
    const page = browser.page;
    await page.getByTestId("nav-profile").click();
    await page.getByLabel("Current password").fill(firstPassword);
    await page.getByLabel("New password", { exact: true }).fill(secondPassword);
    await page.getByLabel("Repeat the new password").fill(secondPassword);
    await page.getByTestId("password-submit").click();
    await page.getByTestId("password-done").waitFor();
    await screenshot(page, "e2e-account-03-password-changed");
  });

  it("refuses the old password and accepts the new one", async () => {
    const page = browser.page;
    await signOut();

    await signIn(firstPassword);
    const error = page.getByTestId("login-error");
    await error.waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/login");

    await signIn(secondPassword);
    await page.waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page.getByTestId("user-email").textContent()).toBe(email);
  });

  it("saves the display name, and refuses a name over the limit before sending", async () => {
    const page = browser.page;
    await page.goto("/app/profile");
    const name = page.getByTestId("profile-name");
    await name.evaluate((el: HTMLInputElement) => el.removeAttribute("maxlength"));
    await name.fill("x".repeat(101));
    await page.getByTestId("profile-name-submit").click();
    expect(await page.getByTestId("profile-name-error").textContent()).toBe("Use at most 100 characters");
    await name.fill("Ada Example");
    await page.getByTestId("profile-name-submit").click();
    await page.getByTestId("name-done").waitFor();
    expect(await page.getByTestId("profile-name-error").count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId("profile-name").inputValue()).toBe("Ada Example");
  });

  it("resets a forgotten password from the emailed link", async () => {
    const page = browser.page;
    await signOut();
    await page.goto("/app/reset-password");
    await page.getByTestId("reset-email").fill(email);
    await page.getByTestId("reset-submit").click();
    expect(await page.getByTestId("reset-sent").textContent()).toContain(email);
    await screenshot(page, "e2e-account-04-reset-sent");

    const link = await waitForLink(server.outboxDir, email, "/app/reset-password/confirm?token=");
    await page.goto(link);
    await page.getByTestId("reset-password").fill(thirdPassword);
    await page.getByTestId("reset-password-confirm").fill(`${thirdPassword}x`);
    await page.getByTestId("reset-confirm-submit").click();
    expect(await page.getByTestId("reset-password-confirm-error").textContent()).toBe("The two passwords differ");
    await page.getByTestId("reset-password-confirm").fill(thirdPassword);
    await page.getByTestId("reset-confirm-submit").click();
    await page.getByTestId("reset-done").waitFor();
    await screenshot(page, "e2e-account-05-reset-done");

    // The link works once.
    await page.goto(link);
    await page.getByTestId("reset-password").fill(secondPassword);
    await page.getByTestId("reset-password-confirm").fill(secondPassword);
    await page.getByTestId("reset-confirm-submit").click();
    await page.getByRole("alert").filter({ hasText: /./ }).first().waitFor();
    expect(await page.getByTestId("reset-done").count()).toBe(0);

    await signIn(thirdPassword);
    await page.waitForURL((u) => u.pathname === "/app");
  });

  it("deletes the account only with the right password", async () => {
    const page = browser.page;
    await page.goto("/app/profile");
    await page.getByTestId("delete-account").click();
    const dialog = page.locator("dialog[open]");
    await page.getByTestId("delete-password").fill("not-the-password-1");
    await dialog.getByTestId("confirm-ok").click();
    await expect.poll(() => dialog.getByRole("alert").count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe("/app/profile");
    await page.getByTestId("delete-password").fill(thirdPassword);
    await dialog.getByTestId("confirm-ok").click();
    await page.waitForURL((u) => u.pathname === "/");
    await signIn(thirdPassword);
    await page.getByTestId("login-error").waitFor();
  });
});
