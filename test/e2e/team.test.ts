// Browser test of teams, mail through a real SMTP server on loopback: the owner invites, the invitee
// opens the emailed link, signs up, verifies, accepts and edits the owner's link; the owner sees who
// edited it and removes the member. Then the landing page's refusals: wrong account, cancelled, replaced, expired.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { linkIn, startSmtpServer } from "../helpers/mail.js";
import { ManualClock } from "../../src/shared/clock.js";
import type { Page } from "playwright-core";

const available = browserAvailable();
const PASSWORD = "team-password-1";

describe.skipIf(!available)("teams in the browser", () => {
  let fixture: BrowserFixture;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const clock = new ManualClock(Date.now());
  const owner = `owner-${Date.now()}@example.com`;
  const invitee = `invitee-${Date.now()}@example.com`;
  let alias = "";

  beforeAll(async () => {
    smtp = await startSmtpServer();
    fixture = await startBrowserFixture({ clock, env: { SMTP_URL: smtp.url } });
    const o = await fixture.server.ctx.accounts.create({ email: owner, password: PASSWORD, plan: "business", verified: true, name: "Olga Owner" });
    const link = await fixture.server.ctx.links.create(o, { url: "https://example.com/team-original" });
    alias = link.alias;
  });
  afterAll(async () => {
    await fixture?.close();
    await smtp?.close();
  });

  const mailLink = async (to: string, path: string): Promise<string> => {
    await expect.poll(() => smtp.messages.filter((m) => m.to.includes(to) && m.raw.includes("token")).length, { timeout: 10_000 }).toBeGreaterThan(0);
    return linkIn(smtp.messages.filter((m) => m.to.includes(to)).at(-1)!.raw, path);
  };
  const signOut = async (page: Page) => {
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  };

  it("owner invites; the invitee signs up from the emailed link, verifies, accepts and edits the owner's link; the owner removes them", async () => {
    const page = fixture.browser.page;
    await signInPage(page, owner, PASSWORD);
    await page.getByTestId("nav-team").click();
    await page.getByTestId("section-members").getByTestId("members-empty").waitFor();
    await page.getByTestId("memberships-empty").waitFor();
    await page.getByLabel("Email address").fill(invitee);
    await page.getByTestId("invite-submit").click();
    await page.getByTestId("team-notice").waitFor();
    const row = page.getByTestId("invitation-row").filter({ hasText: invitee });
    await row.getByTestId("invitation-sent").waitFor();
    expect(await row.getByTestId("invitation-resend").isDisabled()).toBe(true);
    expect(await row.getByTestId("invitation-resend").textContent()).toMatch(/^Resend in \d+ s$/);
    expect(await page.getByTestId("collaborator-count").textContent()).toContain("1 of 2");
    await screenshot(page, "e2e-team-01-team-page");
    await signOut(page);

    // The invitee opens the emailed link signed out.
    const invitation = await mailLink(invitee, "/app/invitations/accept?token=");
    expect(invitation.startsWith(`${fixture.server.url}/app/invitations/accept?token=`)).toBe(true);
    await page.goto(invitation);
    expect(await page.getByTestId("invitation-summary").textContent()).toBe(`Olga Owner (${owner}) invited ${invitee} to their team on snip.`);
    await page.getByTestId("invitation-signed-out").waitFor();
    await screenshot(page, "e2e-team-02-landing-signed-out");
    await page.getByTestId("invitation-signup").click();
    expect(await page.getByLabel("Email").inputValue()).toBe(invitee);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByTestId("signup-submit").click();
    // Back on the landing page, which asks for the email to be confirmed first.
    await page.getByTestId("invitation-unverified").waitFor();
    await screenshot(page, "e2e-team-03-landing-unverified");

    const verify = await mailLink(invitee, "/app/verify-email?token=");
    await page.goto(verify);
    await page.getByTestId("verify-success").waitFor();
    await page.getByTestId("verify-continue-invitation").click();
    await page.getByTestId("invitation-accept").click();
    // Accepting lands on the owner's links, and the sidebar's switcher offers them from then on.
    await page.waitForURL(/\/app\/shared\//);
    await page.getByTestId("team-switcher").waitFor();
    expect(await page.getByTestId("team-switcher").getByRole("link").allTextContents()).toEqual(["Your links", "Olga Owner's links"]);

    // The owner's links, shared: edit and statistics, no delete button. The title names the owner once the
    // page has loaded the membership ("Shared with me" until then).
    await page.getByTestId("shared-title").filter({ hasText: "Links of Olga Owner" }).waitFor();
    expect(await page.getByTestId("shared-title").textContent()).toBe("Links of Olga Owner");
    const shared = page.getByTestId("link-row").filter({ hasText: alias });
    await shared.waitFor();
    await shared.getByTestId("link-menu").click();
    await shared.getByTestId("link-edit").waitFor();
    expect(await shared.getByTestId("link-delete").count()).toBe(0);
    await page.keyboard.press("Escape");
    await screenshot(page, "e2e-team-04-shared-links");
    await screenshotModes(page, "flows-team-switcher");
    // The switcher goes to the member's own links and back.
    await page.getByTestId("team-view-own").click();
    await page.waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => page.getByTestId("team-view-own").getAttribute("aria-current")).toBe("page");
    await page.getByTestId("team-switcher").getByRole("link", { name: "Olga Owner's links" }).click();
    await page.getByTestId("shared-title").filter({ hasText: "Links of Olga Owner" }).waitFor();
    await shared.waitFor();
    // "New link" from the shared view says that new links are the member's own.
    await page.getByTestId("nav-new-link").click();
    expect(await page.getByTestId("shared-create-note").textContent()).toContain("Olga Owner's links");
    await page.goBack();
    await shared.waitFor();
    await shared.getByTestId("link-menu").click();
    await shared.getByTestId("link-edit").click();
    await expect.poll(() => page.getByLabel("Destination URL").inputValue()).toBe("https://example.com/team-original");
    // The invitee is on the free plan; the owner's Business plan enables the limits.
    await page.getByTestId("option-limits-toggle").click();
    expect(await page.getByLabel("Maximum clicks").isDisabled()).toBe(false);
    await page.getByLabel("Destination URL").fill("https://example.com/team-edited");
    await page.getByLabel("Maximum clicks").fill("25");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    expect(await page.getByTestId("link-form-updated-by").textContent()).toContain("last edited by you");
    const res = await fetch(`${fixture.server.url}/${alias}`, { redirect: "manual" });
    expect(res.headers.get("location")).toBe("https://example.com/team-edited");
    await page.getByText("← Shared links").click();
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-menu").click();
    await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-stats").click();
    await page.getByTestId("total-clicks").waitFor();
    await page.getByTestId("stats-csv").waitFor();
    await signOut(page);

    // The owner sees who edited the link, then removes the member.
    await signInPage(page, owner, PASSWORD);
    expect(await page.getByTestId("link-row").filter({ hasText: alias }).getByTestId("link-updated-by").textContent()).toBe(`Last edited by ${invitee}`);
    await page.goto("/app/team");
    const member = page.getByTestId("member-row").filter({ hasText: invitee });
    await member.waitFor();
    expect(await page.getByTestId("invitations-empty").count()).toBe(1);
    await screenshot(page, "e2e-team-05-team-with-member");
    await member.getByTestId("member-remove").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await page.getByTestId("members-empty").waitFor();
    await page.goto("/app/profile");
    await page.getByTestId("team-summary").waitFor();
    expect(await page.getByTestId("team-summary").textContent()).toContain("MembersNone");
    await signOut(page);

    // The removed member's shared view answers that access ended.
    await signInPage(page, invitee, PASSWORD);
    await page.goto("/app/team");
    await page.getByTestId("memberships-empty").waitFor();
    await signOut(page);
  });

  it("the landing page says why a link cannot be accepted: wrong account, cancelled, replaced, expired", async () => {
    const page = fixture.browser.page;
    const ctx = fixture.server.ctx;
    const o = await ctx.accounts.requireByEmail(owner);
    const target = `target-${Date.now()}@example.com`;
    const other = `other-${Date.now()}@example.com`;
    await ctx.accounts.create({ email: other, password: PASSWORD, verified: true });

    const first = await ctx.teams.invite(o, target);
    const firstLink = await mailLink(target, "/app/invitations/accept?token=");
    await signInPage(page, other, PASSWORD);
    // A free account's Team page: no invitations on its plan, nothing joined yet.
    await page.goto("/app/team");
    await page.getByTestId("invite-gated").waitFor();
    await page.getByTestId("memberships-empty").waitFor();
    await page.goto(firstLink);
    await page.getByTestId("invitation-wrong-account").waitFor();
    expect(await page.getByTestId("invitation-wrong-account").textContent()).toContain(`this invitation is for ${target}`);
    await screenshot(page, "e2e-team-06-landing-wrong-account");
    await page.getByTestId("invitation-switch-account").click();
    await page.getByTestId("invitation-signed-out").waitFor();

    clock.advance(61_000);
    await ctx.teams.resend(o, first.id);
    await page.goto(firstLink);
    await page.getByTestId("invitation-replaced").waitFor();

    const secondLink = await mailLink(target, "/app/invitations/accept?token=");
    clock.advance(7 * 86_400_000);
    await page.goto(secondLink);
    await page.getByTestId("invitation-expired").waitFor();
    await screenshot(page, "e2e-team-07-landing-expired");

    await ctx.teams.cancel(o, first.id);
    await page.goto(secondLink);
    await page.getByTestId("invitation-cancelled").waitFor();

    await page.goto("/app/invitations/accept?token=not-a-real-token-at-all-1234567890");
    await page.getByTestId("invitation-invalid").waitFor();
    await page.goto("/app/invitations/accept");
    await page.getByTestId("invitation-incomplete").waitFor();
  });
});
