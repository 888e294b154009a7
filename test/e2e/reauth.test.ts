// Browser test of sudo mode ("Confirm it's you") and the security activity. A session whose last proof is old
// (reauth_at set back in the test database) creates an API key: the dialog opens with the focus in its password
// field, a wrong password is told beside it, the right one sends the refused creation again by itself and the secret
// shows; a passkey proves it too; Escape cancels with a clear message and keeps what was typed; wrong passwords past
// the throttle say when to try again. The Security page lists the sign-in, the refusal and the keys, and each
// session's way. The dialog passes axe in light and dark;
// screenshots of it and of the activity at 1280 and 390 px, light and dark.
// On http://localhost (as passkeys.test.ts): WebAuthn needs a secure context whose host is the RP ID.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { AxeBuilder } from "@axe-core/playwright";
import {
  SHOTS,
  SHOTS_DIR,
  browserAvailable,
  ensureWebBuilt,
  launchBrowser,
  screenshot,
  screenshotModes,
  settledAnimations,
  signInPage,
  type BrowserSession,
} from "./browser.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";

const available = browserAvailable();

describe.skipIf(!available)("confirm it's you (sudo mode) and the security activity in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  const email = "reauth-e2e@example.com";
  const password = "reauth-password-1";
  /** POST /api/keys requests the page sent: one click may send two (refused, then again after the proof). */
  let keyPosts = 0;

  beforeAll(async () => {
    await ensureWebBuilt();
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    server = await startTestServer({ env: { PORT: String(port), BASE_URL: origin } });
    await server.ctx.accounts.create({ email, password, plan: "free", verified: true });
    browser = await launchBrowser({ baseURL: origin });
    const cdp = await browser.context.newCDPSession(browser.page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    browser.page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/api/keys") keyPosts++;
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const page = () => browser.page;
  /** The session's last proof long ago: the next change of how the account signs in answers 403 reauth_required. */
  const endSudo = () => server.ctx.storage.db.updateTable("sessions").set({ reauth_at: 0 }).execute();
  const keyNames = async () => (await server.ctx.storage.db.selectFrom("api_keys").select("name").orderBy("created_at").execute()).map((k) => k.name);

  /**
   * What the window shows with the dialog open, at 1280 and 390 px, light and dark (a full-page shot of a modal puts
   * it over whatever part of the long profile page it likes).
   */
  async function windowShots(p: Page, name: string) {
    for (const scheme of ["light", "dark"] as const) {
      await p.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 390]) {
        await p.setViewportSize({ width, height: width < 500 ? 844 : 900 });
        await screenshot(p, `${name}-${width}-${scheme}`, false);
      }
    }
    await p.emulateMedia({ colorScheme: "light" });
    await p.setViewportSize({ width: 1280, height: 900 });
  }

  async function createKey(p: Page, name: string) {
    await p.getByTestId("key-name").fill(name);
    await p.getByTestId("key-create").click();
    await p.getByTestId("reauth-dialog").waitFor();
  }

  it("asks for the password in place, tells a wrong one, and carries on with the creation after the right one", async () => {
    await signInPage(page(), email, password);
    await page().goto("/app/security");
    // A passkey while the sign-in still counts as the proof (for the passkey test below).
    await page().getByTestId("passkey-name").fill("Test laptop");
    await page().getByTestId("passkey-add").click();
    await page().getByTestId("passkey-added").waitFor();

    await endSudo();
    keyPosts = 0;
    await createKey(page(), "Deploy bot");
    const dialog = page().getByRole("dialog", { name: "Confirm it's you" });
    expect(await dialog.isVisible()).toBe(true);
    // The dialog moves the focus in an effect after it shows: on a loaded machine a moment later.
    await expect.poll(() => page().evaluate(() => document.activeElement?.id), { timeout: 10_000 }).toBe("reauth-password");
    await dialog.getByTestId("reauth-passkey").waitFor();
    expect(await dialog.getByTestId("reauth-sso").count()).toBe(0);
    await windowShots(page(), "e2e-reauth-01-dialog");

    await dialog.getByTestId("reauth-password").fill("not-the-password");
    await dialog.getByTestId("reauth-submit").click();
    // A wrong password is checked with argon2id: seconds on a loaded machine.
    await expect.poll(() => dialog.getByTestId("reauth-password-error").textContent(), { timeout: 15_000 }).toBe("That is not your password. Try again.");
    expect(await dialog.isVisible()).toBe(true);
    expect(await keyNames()).toEqual([]);
    await windowShots(page(), "e2e-reauth-02-wrong-password");
    // The mouse off the buttons: axe measures the colours as they are, and a hovered button is another shade.
    await page().mouse.move(0, 0);
    for (const scheme of ["light", "dark"] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      // The buttons' colours move to the new scheme over 0.15 s: axe measures them once there (a loaded machine ran it mid-way).
      await settledAnimations(page());
      const axe = await new AxeBuilder({ page: page() }).include(".reauth-dialog").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      expect(
        axe.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .flatMap((v) => v.nodes.map((n) => `${scheme}: ${v.id} at ${n.target.join(" ")}: ${n.failureSummary ?? ""}`)),
      ).toEqual([]);
    }
    await page().emulateMedia({ colorScheme: "light" });

    await dialog.getByTestId("reauth-password").fill(password);
    await dialog.getByTestId("reauth-submit").click();
    await expect.poll(() => page().getByTestId("key-secret").textContent(), { timeout: 15_000 }).toMatch(/^snip_/);
    expect(await page().getByTestId("reauth-dialog").count()).toBe(0);
    expect(await keyNames()).toEqual(["Deploy bot"]);
    // The one click sent the creation twice: refused, then again after the proof; Create was not pressed again.
    expect(keyPosts).toBe(2);
    // The secret shows first; the list is read again after it (on a loaded machine, a moment later).
    await expect.poll(() => page().getByTestId("key-row").count(), { timeout: 15_000 }).toBe(1);
  });

  it("proves it with a passkey too", async () => {
    await page().getByRole("button", { name: "I have stored it, hide it" }).click();
    await endSudo();
    await createKey(page(), "Passkey-confirmed key");
    await page().getByTestId("reauth-passkey").click();
    await expect.poll(() => page().getByTestId("key-secret").textContent(), { timeout: 15_000 }).toMatch(/^snip_/);
    expect(await keyNames()).toEqual(["Deploy bot", "Passkey-confirmed key"]);
  });

  it("Escape cancels: the form says nothing was changed and keeps what was typed", async () => {
    await endSudo();
    await createKey(page(), "Cancelled key");
    await page().keyboard.press("Escape");
    await expect.poll(() => page().getByTestId("key-name-error").textContent()).toContain("cancelled");
    expect(await page().getByTestId("reauth-dialog").count()).toBe(0);
    expect(await page().getByTestId("key-name").inputValue()).toBe("Cancelled key");
    expect(await keyNames()).toEqual(["Deploy bot", "Passkey-confirmed key"]);
  });

  it("lists the sign-in, the refusal and the keys on the Security page, and how each session was made", async () => {
    await page().goto("/app/security");
    const section = page().getByTestId("section-activity");
    await section.getByTestId("activity-row").first().waitFor();
    const rows = section.getByTestId("activity-row");
    const text = async (kind: string, outcome = "success") => section.locator(`[data-kind="${kind}"][data-outcome="${outcome}"]`).allTextContents();
    expect((await text("sign_in")).join("\n")).toContain("Signed in with a password");
    expect((await text("api_key_created")).join("\n")).toContain("API key “Deploy bot” created");
    expect((await text("passkey_added")).join("\n")).toContain("Passkey “Test laptop” added");
    expect((await text("reauth")).join("\n")).toContain("Confirmed it was you with a passkey");
    const refused = await text("reauth", "refused");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("Refused");
    expect(refused[0]).toContain("wrong password");
    // Newest first: the last thing done is on top.
    expect(await rows.first().getAttribute("data-kind")).toBe("api_key_created");
    expect(await rows.first().locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page().getByTestId("session-signed-in").textContent()).toContain("Signed in with a password on");

    await screenshotModes(page(), "e2e-reauth-03-security-page");
    for (const width of [1280, 390]) {
      await page().setViewportSize({ width, height: 900 });
      for (const scheme of ["light", "dark"] as const) {
        await page().emulateMedia({ colorScheme: scheme });
        if (SHOTS) await section.screenshot({ path: join(SHOTS_DIR, `e2e-reauth-activity-${width}-${scheme}.png`) });
      }
    }
    await page().emulateMedia({ colorScheme: "light" });
    await page().setViewportSize({ width: 1280, height: 900 });
  });

  it("the activity's empty and error states: a failed load offers to try again", async () => {
    const activity = "**/api/auth/activity";
    await page().route(activity, (r) => r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ status: "success", activity: [] }) }));
    await page().goto("/app/security");
    await page().getByTestId("activity-empty").waitFor();
    await page().unroute(activity);
    await page().route(activity, (r) =>
      r.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ status: "error", code: "unavailable", message: "Try again in a moment" }),
      }),
    );
    await page().goto("/app/security");
    await expect.poll(() => page().getByTestId("activity-error").textContent()).toContain("Try again in a moment");
    await page().unroute(activity);
    await page().getByTestId("activity-error").getByRole("button", { name: "Try again" }).click();
    await page().getByTestId("activity-row").first().waitFor();
  });

  it("after too many wrong passwords, the dialog says when to try again", async () => {
    await page().goto("/app/security");
    await endSudo();
    await createKey(page(), "Throttled key");
    const dialog = page().getByTestId("reauth-dialog");
    // The account's bucket of wrong passwords (10 in 15 minutes) already holds the first test's one.
    for (let i = 0; i < 12; i++) {
      await dialog.getByTestId("reauth-password").fill(`wrong-${i}`);
      await dialog.getByTestId("reauth-submit").click();
      await page().waitForFunction(() => !document.querySelector('[data-testid="reauth-submit"]')?.hasAttribute("disabled"));
      if (await dialog.getByTestId("reauth-error").count()) break;
    }
    await expect.poll(() => dialog.getByTestId("reauth-error").textContent()).toMatch(/Too many wrong passwords.*Try again in \d+ (seconds|minutes)\./);
    await windowShots(page(), "e2e-reauth-04-throttled");
    await dialog.getByTestId("reauth-cancel").click();
    expect(await keyNames()).not.toContain("Throttled key");
  });
});
