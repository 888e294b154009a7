// Browser test of the Enterprise team's policy "require two-factor sign-in" on the Team page: the owner sees each
// member's state, turns the policy on through the confirmation that names who loses access, and the server enforces
// it (the member without a second factor is refused the owner's links with 2fa_setup_required; their Team page says
// what to do and the shared links send them to set it up); turned off again once sudo mode has lapsed, through
// "Confirm it's you". Not offered below Enterprise. Screenshots of the Team page at 1280 x 800 and 390 x 844, light
// and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { joinTeam, testAccount, type TestAccount } from "../helpers/team.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";

const available = browserAvailable();
const PASSWORD = "correct horse 1";

/** The page at the two widths the house rules name, light and dark: SHOTS_DIR/<name>-<width>-<scheme>.png. */
async function shots(page: Page, name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await screenshot(page, `${name}-${width}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe.skipIf(!available)("the team's two-factor policy on the Team page", () => {
  let f: BrowserFixture;
  let owner: TestAccount;
  let member: TestAccount;
  let secured: TestAccount;
  const stamp = Date.now();

  beforeAll(async () => {
    f = await startBrowserFixture();
    owner = await testAccount(f.server, `policy-owner-${stamp}@example.com`, "enterprise");
    member = await testAccount(f.server, `policy-member-${stamp}@example.com`);
    secured = await testAccount(f.server, `policy-secured-${stamp}@example.com`);
    await joinTeam(f.server, owner, member);
    await joinTeam(f.server, owner, secured);
    // One member has turned two-factor sign-in on already, as the Security page does it.
    const setup = await secured.client.post("/api/auth/2fa/totp/setup");
    const enabled = await secured.client.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(setup.body.secret), Date.now()) });
    if (enabled.status !== 200) throw new Error(`enabling 2FA failed: ${enabled.status} ${enabled.text}`);
    await f.server.ctx.links.create(await f.server.ctx.accounts.requireByEmail(owner.email), { url: "https://example.com/policy" });
  });
  afterAll(async () => f?.close());

  const page = () => f.browser.page;
  const policy = async () => (await owner.client.get("/api/team/policy")).body.require_2fa as boolean;
  const signOut = async () => {
    await page().getByTestId("sign-out").click();
    await page().getByTestId("nav-login").waitFor();
  };

  it("the owner sees each member's state, and requires two-factor sign-in through a confirmation naming who loses access", async () => {
    await signInPage(page(), owner.email, PASSWORD);
    await page().goto("/app/team");
    const section = page().getByTestId("section-team-policy");
    await section.getByTestId("policy-state").waitFor();
    expect(await section.getByTestId("policy-state").textContent()).toMatch(/^Off:/);
    expect(await section.getByTestId("policy-switch").isChecked()).toBe(false);
    expect(await section.getByTestId("policy-switch").getAttribute("role")).toBe("switch");
    expect(await section.getByTestId("policy-members").textContent()).toContain(`1 of 2 without it ${member.email} would lose access`);
    const badge = (email: string) => page().getByTestId("member-row").filter({ hasText: email }).getByTestId("member-2fa").textContent();
    expect(await badge(member.email)).toBe("No two-factor sign-in");
    expect(await badge(secured.email)).toBe("Two-factor on");
    await shots(page(), "team-policy-01-off");

    // Cancelling changes nothing.
    await section.getByTestId("policy-switch").click();
    const dialog = page().locator("dialog[open]");
    expect(await dialog.getByTestId("policy-confirm-without").textContent()).toContain(member.email);
    await dialog.getByTestId("confirm-cancel").click();
    expect(await section.getByTestId("policy-switch").isChecked()).toBe(false);
    expect(await policy()).toBe(false);

    await section.getByTestId("policy-switch").click();
    await screenshot(page(), "team-policy-02-confirm-1280", false);
    await dialog.getByTestId("confirm-ok").click();
    await section.getByTestId("policy-notice").waitFor();
    expect(await section.getByTestId("policy-state").textContent()).toMatch(/^On:/);
    expect(await section.getByTestId("policy-switch").isChecked()).toBe(true);
    expect(await section.getByTestId("policy-members").textContent()).toContain(`${member.email} cannot open your links`);
    expect(await policy()).toBe(true);
    await shots(page(), "team-policy-03-on");
    await signOut();
  });

  it("is enforced: the member without two-factor sign-in is refused the owner's links and told how to get in", async () => {
    const refused = await member.client.get(`/api/links?owner=${owner.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("2fa_setup_required");
    expect((await secured.client.get(`/api/links?owner=${owner.id}`)).status).toBe(200);

    await signInPage(page(), member.email, PASSWORD);
    await page().goto("/app/team");
    const row = page().getByTestId("membership-row").filter({ hasText: owner.email });
    await row.getByTestId("membership-requires-2fa").waitFor();
    expect(await row.getByTestId("membership-links").count()).toBe(0);
    await shots(page(), "team-policy-04-member");
    await row.getByTestId("membership-setup-2fa").click();
    await page().waitForURL((u) => u.pathname === "/app/security");
    await page().getByTestId("2fa-required").waitFor();
    // The owner's links themselves send the member to set it up, as the server refuses them.
    await page().goto(`/app/shared/${owner.id}`);
    await page().waitForURL((u) => u.pathname === "/app/security");
    await page().getByTestId("2fa-start").waitFor();
    await signOut();
  });

  it("turned off again once sudo mode has lapsed: the owner confirms it is them first", async () => {
    await signInPage(page(), owner.email, PASSWORD);
    // The sign-in's proof is older than 10 minutes.
    await f.server.ctx.storage.db.updateTable("sessions").set({ reauth_at: 0 }).execute();
    await page().goto("/app/team");
    const section = page().getByTestId("section-team-policy");
    await section.getByTestId("policy-state").waitFor();
    await section.getByTestId("policy-switch").click();
    await page().locator("dialog[open]").getByTestId("confirm-ok").click();
    const reauth = page().getByTestId("reauth-dialog");
    await reauth.waitFor();
    await reauth.getByTestId("reauth-password").fill(PASSWORD);
    await reauth.getByTestId("reauth-submit").click();
    await expect.poll(() => section.getByTestId("policy-state").textContent()).toMatch(/^Off:/);
    expect(await policy()).toBe(false);
    expect((await member.client.get(`/api/links?owner=${owner.id}`)).status).toBe(200);
  });

  it("is not offered below Enterprise", async () => {
    await signOut();
    const business = await testAccount(f.server, `policy-business-${stamp}@example.com`, "business");
    await signInPage(page(), business.email, PASSWORD);
    await page().goto("/app/team");
    await page().getByTestId("section-members").waitFor();
    await page().getByTestId("collaborator-count").waitFor();
    expect(await page().getByTestId("section-team-policy").count()).toBe(0);
    expect(await page().getByTestId("member-2fa").count()).toBe(0);
    // The server refuses it too.
    expect((await business.client.put("/api/team/policy", { require_2fa: true })).body.code).toBe("plan_required");
  });
});
