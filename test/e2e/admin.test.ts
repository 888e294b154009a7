// Browser test of the operator console: an operator finds an account by email and changes its plan, is
// refused suspending their own account, disables a reported link from the reports queue, blocks a host and reads
// those actions in the audit log; a non-operator sees no Operator entry and gets "not available"; the owner of the
// disabled link reads the operator's reason in their dashboard. The blocklist page shows the threat feeds.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { newId } from "../../src/shared/ids.js";

const available = browserAvailable();
const PASSWORD = "operator-password-1";

describe.skipIf(!available)("the operator console in the browser", () => {
  let fixture: BrowserFixture;
  const stamp = Date.now().toString(36);
  const operator = `ops-${stamp}@example.com`;
  const customer = `customer-${stamp}@example.com`;
  const owner = `owner-${stamp}@example.com`;
  const blockedHost = `blocked-${stamp}.example`;
  const reason = "Phishing page confirmed by the operator <b>not bold</b>";
  let reported = { id: "", alias: "" };
  let toBlock = { alias: "" };

  const feedDir = mkdtempSync(join(tmpdir(), "snip-e2e-feed-"));

  beforeAll(async () => {
    const feed = join(feedDir, "urlhaus.csv");
    writeFileSync(
      feed,
      '# id,dateadded,url,url_status\n"1","2026-12-01 10:00:00","https://malware-root.example/","online"\n"2","2026-12-01 10:00:00","http://198.51.100.9/x.sh","online"\nbroken"row\n',
    );
    fixture = await startBrowserFixture({ env: { THREAT_FEEDS: `urlhaus:${feed}` } });
    const ctx = fixture.server.ctx;
    await ctx.accounts.create({ email: operator, password: PASSWORD, verified: true, admin: true, name: "Olive Operator" });
    await ctx.accounts.create({ email: customer, password: PASSWORD, verified: true, name: "Carl Customer" });
    const o = await ctx.accounts.create({ email: owner, password: PASSWORD, verified: true });
    const link = await ctx.links.create(o, { url: `https://phish-${stamp}.example/login` });
    reported = { id: link.id, alias: link.alias };
    toBlock = { alias: (await ctx.links.create(o, { url: `https://www.${blockedHost}/page` })).alias };
    await ctx.links.create(o, { url: "https://example.com/harmless" });
    // Two reports of the link: the queue counts reports per link.
    await seedReport(link, "It asks for my bank password.\nLooks just like my bank.", "victim@example.net", Date.now());
    await seedReport(link, "", null, Date.now() - 60_000);
  });
  afterAll(async () => {
    await fixture?.close();
    rmSync(feedDir, { recursive: true, force: true });
  });

  /** A report as the public form would have stored it. */
  const seedReport = async (link: { id: string; domain: string; alias: string; url: string }, details: string, reporter: string | null, at: number) => {
    await fixture.server.ctx.storage.db
      .insertInto("abuse_reports")
      .values({
        id: newId(),
        link_id: link.id,
        domain: link.domain,
        alias: link.alias,
        url: link.url,
        reason: "phishing",
        details,
        reporter_email: reporter,
        state: "open",
        created_at: at,
        resolved_at: null,
        resolved_by: null,
      })
      .execute();
  };

  const signOut = async (page: Page) => {
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  };
  /** Each test starts signed out, whatever the one before left behind. */
  const freshPage = async () => {
    await fixture.browser.context.clearCookies();
    return fixture.browser.page;
  };
  const redirectStatus = async (alias: string) => (await fetch(`${fixture.server.url}/${alias}`, { redirect: "manual" })).status;

  it("an operator changes a plan, disables a reported link, blocks a host and reads it all in the audit log", async () => {
    const page = await freshPage();
    const ctx = fixture.server.ctx;
    await signInPage(page, operator, PASSWORD);

    // Overview.
    await page.getByTestId("nav-admin").click();
    await page.waitForURL((u) => u.pathname === "/app/admin");
    await page.getByTestId("overview").waitFor();
    expect(await page.getByTestId("overview-accounts-value").textContent()).toBe("3");
    expect(await page.getByTestId("overview-reports-value").textContent()).toBe("2");
    expect(await page.getByTestId("health-database").textContent()).toBe("OK");
    await screenshot(page, "e2e-admin-01-overview");

    // Accounts: find the customer by email, change the plan.
    await page.getByTestId("admin-tab-accounts").click();
    await page.getByTestId("accounts-table").waitFor();
    await page.getByTestId("accounts-search").fill(customer.slice(0, 16));
    await page.getByTestId("accounts-search-submit").click();
    await page.waitForURL((u) => u.pathname === "/app/admin/accounts" && u.searchParams.get("q") === customer.slice(0, 16));
    const row = page.getByTestId("account-row").filter({ hasText: customer });
    await row.waitFor();
    await expect.poll(() => page.getByTestId("account-row").count()).toBe(1);
    expect(await row.getByTestId("account-plan").inputValue()).toBe("free");
    await row.getByTestId("account-plan").selectOption("pro");
    // An upgrade asks too; it applies once confirmed.
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await page.getByTestId("accounts-notice").filter({ hasText: "Pro" }).waitFor();
    expect(await row.getByTestId("account-plan").inputValue()).toBe("pro");
    expect((await ctx.accounts.requireByEmail(customer)).plan).toBe("pro");
    await screenshot(page, "e2e-admin-02-accounts-plan-changed");

    // The server refuses suspending one's own account (409): the error shows on the row.
    await page.getByTestId("accounts-search").fill(operator);
    await page.getByTestId("accounts-search-submit").click();
    const self = page.getByTestId("account-row").filter({ hasText: operator });
    await self.waitFor();
    await expect.poll(() => page.getByTestId("account-row").count()).toBe(1);
    await self.getByTestId("account-menu").click();
    await self.getByTestId("account-toggle-status").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await self.getByTestId("account-error").waitFor();
    expect(await self.getByTestId("account-status").textContent()).toBe("Active");
    await screenshot(page, "e2e-admin-03-accounts-self-refused");

    // Reports: the queue shows the report; disable the link from it.
    await page.getByTestId("admin-tab-reports").click();
    await page.waitForURL((u) => u.pathname === "/app/admin/reports");
    const report = page.getByTestId("report-row").filter({ hasText: "victim@example.net" });
    await report.waitFor();
    expect(await report.getByTestId("report-link").textContent()).toContain(reported.alias);
    expect(await report.getByTestId("report-owner").textContent()).toBe(owner);
    expect(await report.getByTestId("report-count").textContent()).toContain("2 reports");
    expect(await report.getByTestId("report-details").textContent()).toBe("It asks for my bank password.\nLooks just like my bank.");
    await screenshot(page, "e2e-admin-04-reports-queue");
    await report.getByTestId("report-disable-link").click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByTestId("disable-reason").fill(reason);
    await dialog.getByTestId("disable-status-451").check();
    await screenshot(page, "e2e-admin-05-reports-disable-dialog");
    await dialog.getByTestId("confirm-ok").click();
    await page.getByTestId("reports-notice").waitFor();
    // Both reports of the link are resolved together: the open queue is empty.
    await page.getByTestId("reports-empty").waitFor();
    expect(await redirectStatus(reported.alias)).toBe(451);
    await page.getByTestId("reports-state-link_disabled").click();
    await expect.poll(() => page.getByTestId("report-row").count()).toBe(2);
    await screenshot(page, "e2e-admin-06-reports-resolved");

    // Links: the owner's links, the reported one disabled with the reason (as text, not markup).
    await page.getByTestId("admin-tab-links").click();
    await page.getByTestId("admin-links-owner").fill(owner);
    await page.getByTestId("admin-links-submit").click();
    await expect.poll(() => page.getByTestId("admin-link-row").count()).toBe(3);
    const disabledRow = page.getByTestId("admin-link-row").filter({ hasText: reported.alias });
    expect(await disabledRow.getByTestId("link-state").textContent()).toContain("Disabled");
    expect(await disabledRow.getByTestId("link-state-reason").textContent()).toBe(reason);
    expect(await disabledRow.getByTestId("link-state").getAttribute("data-state")).toBe("disabled");
    await disabledRow.getByTestId("admin-link-menu").click();
    await disabledRow.getByTestId("admin-link-enable").waitFor();
    await screenshot(page, "e2e-admin-07-links");

    // Blocklist: block a host; the owner's link to a subdomain of it stops redirecting.
    expect(await redirectStatus(toBlock.alias)).toBe(302);
    await page.getByTestId("admin-tab-blocklist").click();
    await page.getByTestId("blocklist-file").waitFor();
    await page.getByTestId("block-host").fill(`https://${blockedHost}/some/path`);
    await page.getByTestId("block-note").fill("Fake bank kit");
    await page.getByTestId("block-submit").click();
    await page.getByTestId("blocklist-notice").waitFor();
    const blocked = page.getByTestId("blocklist-row").filter({ hasText: blockedHost });
    await blocked.waitFor();
    expect(await blocked.getByTestId("blocklist-host").textContent()).toBe(blockedHost);
    expect(await blocked.getByTestId("blocklist-note").textContent()).toBe("Fake bank kit");
    // Listed twice: 409, shown on the field.
    await page.getByTestId("block-host").fill(blockedHost);
    await page.getByTestId("block-submit").click();
    await page.getByTestId("block-host-error").waitFor();
    // The threat feed: its figures, read again on demand.
    const feedRow = page.getByTestId("threat-feed-row");
    await feedRow.waitFor();
    expect((await feedRow.locator("td").allTextContents()).slice(0, 4)).toEqual(["URLhaus", join(feedDir, "urlhaus.csv"), "1", "1"]);
    await page.getByTestId("threat-feeds-reload").click();
    await expect.poll(() => page.getByTestId("threat-feeds-reload").textContent()).toBe("Reload now");
    await screenshot(page, "e2e-admin-08-blocklist");
    await expect.poll(() => redirectStatus(toBlock.alias), { timeout: 10_000 }).toBe(410);

    // Audit log: the three actions, newest first; filter by action.
    await page.getByTestId("admin-tab-audit").click();
    await page.getByTestId("audit-table").waitFor();
    const actions = await page.getByTestId("audit-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
    expect(actions.indexOf("blocklist.add")).toBeGreaterThanOrEqual(0);
    expect(actions.indexOf("blocklist.add")).toBeLessThan(actions.indexOf("report.disable_link"));
    expect(actions.indexOf("report.disable_link")).toBeLessThan(actions.indexOf("account.plan"));
    for (const row of await page.getByTestId("audit-row").all()) expect(await row.getByTestId("audit-actor-email").textContent()).toBe(operator);
    await screenshot(page, "e2e-admin-09-audit");
    await page.getByTestId("audit-action").selectOption("account.plan");
    await page.waitForURL((u) => u.searchParams.get("action") === "account.plan");
    await expect.poll(() => page.getByTestId("audit-row").count()).toBe(1);
    const planEntry = page.getByTestId("audit-row").first();
    const change = (await planEntry.getByTestId("audit-changes").textContent()) ?? "";
    expect(change).toContain("free");
    expect(change).toContain("pro");
    expect(change.indexOf("free")).toBeLessThan(change.indexOf("pro"));
    await screenshot(page, "e2e-admin-10-audit-filtered");

    // An entry's target filters the log by it (the other filters cleared).
    const targetText = (await planEntry.getByTestId("audit-target-filter").textContent()) ?? "";
    const targetId = targetText.replace(/^account /, "");
    expect(targetText).toBe(`account ${targetId}`);
    await planEntry.getByTestId("audit-target-filter").click();
    await page.waitForURL((u) => u.searchParams.get("target") === targetId && u.searchParams.get("action") === null);
    expect(await page.getByTestId("audit-target").inputValue()).toBe(targetId);
    await expect.poll(() => page.getByTestId("audit-row").count()).toBeGreaterThan(0);
    for (const row of await page.getByTestId("audit-row").all()) expect(await row.getByTestId("audit-target-filter").textContent()).toBe(`account ${targetId}`);

    // Removing a host, behind its confirmation (another one: the owner's test below needs blockedHost blocked).
    const passing = `passing-${stamp}.example`;
    await page.getByTestId("admin-tab-blocklist").click();
    await page.getByTestId("block-host").fill(passing);
    await page.getByTestId("block-submit").click();
    await expect.poll(() => page.getByTestId("blocklist-notice").textContent()).toBe(`Blocked ${passing}.`);
    await page.getByTestId("blocklist-row").filter({ hasText: passing }).getByTestId("blocklist-remove").click();
    await page.getByTestId("confirm-ok").click();
    await expect
      .poll(() => page.getByTestId("blocklist-notice").textContent())
      .toBe(`Removed ${passing} from the blocklist: links to it redirect again (unless the file lists it).`);
    expect(await page.getByTestId("blocklist-row").filter({ hasText: passing }).count()).toBe(0);
    expect(await page.getByTestId("blocklist-row").filter({ hasText: blockedHost }).count()).toBe(1);
    await signOut(page);
  });

  it("an operator disables links in bulk by host and by owner, bans an owner from a report and deletes an account", async () => {
    const page = await freshPage();
    const ctx = fixture.server.ctx;
    const spammer = `spammer-${stamp}@example.com`;
    const banned = `banned-${stamp}@example.com`;
    const doomed = `doomed-${stamp}@example.com`;
    const s = await ctx.accounts.create({ email: spammer, password: PASSWORD, verified: true });
    const toHost = await ctx.links.create(s, { url: `https://bulk-${stamp}.example/a` });
    const other = await ctx.links.create(s, { url: "https://example.com/spam-other" });
    const b = await ctx.accounts.create({ email: banned, password: PASSWORD, verified: true });
    const bannedLink = await ctx.links.create(b, { url: "https://example.com/malware" });
    await ctx.links.create(b, { url: "https://example.com/malware-2" });
    await seedReport(bannedLink, "Serves malware", null, Date.now());
    await ctx.accounts.create({ email: doomed, password: PASSWORD, verified: true });
    await signInPage(page, operator, PASSWORD);

    // Every link to a host.
    await page.goto("/app/admin/links");
    await page.getByTestId("bulk-host-open").click();
    let dialog = page.locator("dialog[open]");
    await dialog.getByTestId("disable-host").fill(`bulk-${stamp}.example`);
    await dialog.getByTestId("disable-reason").fill("Spam campaign");
    await dialog.getByTestId("confirm-ok").click();
    expect(await page.getByTestId("admin-links-notice").textContent()).toBe(`Disabled 1 link to bulk-${stamp}.example and its subdomains.`);
    expect(await redirectStatus(toHost.alias)).toBe(410);
    expect(await redirectStatus(other.alias)).toBe(302);

    // Every (remaining) link of the owner.
    await page.getByTestId("admin-links-owner").fill(spammer);
    await page.getByTestId("admin-links-submit").click();
    await expect.poll(() => page.getByTestId("admin-link-row").count()).toBe(2);
    await page.getByTestId("admin-link-row").filter({ hasText: other.alias }).getByTestId("admin-link-menu").click();
    await page.getByTestId("admin-link-row").filter({ hasText: other.alias }).getByTestId("admin-link-disable-owner").click();
    dialog = page.locator("dialog[open]");
    await dialog.getByTestId("disable-reason").fill("Spam account");
    await dialog.getByTestId("confirm-ok").click();
    await page
      .getByTestId("admin-links-notice")
      .filter({ hasText: `Disabled 1 link of ${spammer}.` })
      .waitFor();
    await page.getByTestId("admin-link-row").filter({ hasText: other.alias }).locator('[data-testid="link-state"][data-state="disabled"]').waitFor();
    expect(await redirectStatus(other.alias)).toBe(410);
    await screenshot(page, "e2e-admin-14-links-bulk");

    // Ban from a report: asks first, then suspends the owner and disables their links.
    await page.getByTestId("admin-tab-reports").click();
    const report = page.getByTestId("report-row").filter({ hasText: banned });
    await report.getByTestId("report-ban-owner").click();
    dialog = page.locator("dialog[open]");
    expect(await dialog.textContent()).toContain(banned);
    await screenshot(page, "e2e-admin-15-reports-ban-dialog");
    await dialog.getByTestId("confirm-ok").click();
    await page
      .getByTestId("reports-notice")
      .filter({ hasText: `Banned ${banned}` })
      .waitFor();
    expect((await ctx.accounts.requireByEmail(banned)).status).toBe("suspended");
    expect(await redirectStatus(bannedLink.alias)).toBe(410);

    // Delete: the button waits for the account's email to be typed.
    await page.getByTestId("admin-tab-accounts").click();
    await page.getByTestId("accounts-search").fill(doomed);
    await page.getByTestId("accounts-search-submit").click();
    await expect.poll(() => page.getByTestId("account-row").count()).toBe(1);
    await page.getByTestId("account-row").getByTestId("account-menu").click();
    await page.getByTestId("account-row").getByTestId("account-delete").click();
    dialog = page.locator("dialog[open]");
    expect(await dialog.getByTestId("confirm-ok").isDisabled()).toBe(true);
    await dialog.getByTestId("confirm-email").fill("someone-else@example.com");
    expect(await dialog.getByTestId("confirm-ok").isDisabled()).toBe(true);
    await dialog.getByTestId("confirm-email").fill(doomed);
    await screenshot(page, "e2e-admin-16-accounts-delete-dialog");
    await dialog.getByTestId("confirm-ok").click();
    await page
      .getByTestId("accounts-notice")
      .filter({ hasText: `Deleted the account ${doomed}` })
      .waitFor();
    expect(await page.getByTestId("account-row").count()).toBe(0);
    expect(await ctx.accounts.byEmail(doomed)).toBeNull();

    // The audit log has each of them.
    await page.getByTestId("admin-tab-audit").click();
    await page.getByTestId("audit-table").waitFor();
    const actions = await page.getByTestId("audit-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
    for (const a of ["link.disable_bulk", "report.ban_owner", "account.delete"]) expect(actions).toContain(a);
    await screenshot(page, "e2e-admin-17-audit-more");
  });

  it("a non-operator sees no Operator entry and gets 'not available'", async () => {
    const page = await freshPage();
    await signInPage(page, customer, PASSWORD);
    await page.getByTestId("nav-profile").waitFor();
    expect(await page.getByTestId("nav-admin").count()).toBe(0);
    await page.goto("/app/admin/accounts");
    await page.getByTestId("admin-unavailable").waitFor();
    expect(await page.getByTestId("admin-console").count()).toBe(0);
    // The server refuses anyway.
    const status = await page.evaluate(async () => (await fetch("/api/admin/overview")).status);
    expect(status).toBe(403);
    await screenshot(page, "e2e-admin-11-not-available");
    await signOut(page);
  });

  it("the owner of the disabled link reads the operator's reason and cannot enable it", async () => {
    const page = await freshPage();
    await signInPage(page, owner, PASSWORD);
    const row = page.getByTestId("link-row").filter({ hasText: reported.alias });
    await row.waitFor();
    await row.locator('[data-testid="link-state"][data-state="disabled"]').waitFor();
    expect(await row.getByTestId("link-disabled-reason").textContent()).toBe(`Disabled by the operator: ${reason}`);
    const blockedRow = page.getByTestId("link-row").filter({ hasText: toBlock.alias });
    await blockedRow.locator('[data-testid="link-state"][data-state="blocked"]').waitFor();
    expect(await blockedRow.getByTestId("link-blocked-notice").textContent()).toContain("Destination blocked");
    expect(await page.getByTestId("link-row").filter({ hasText: "harmless" }).getByTestId("link-moderation").count()).toBe(0);
    await screenshot(page, "e2e-admin-12-owner-dashboard");

    await row.getByTestId("link-menu").click();
    await row.getByTestId("link-edit").click();
    await page.getByTestId("link-form").waitFor();
    expect(await page.getByTestId("link-disabled-reason").textContent()).toContain(`Disabled by the operator: ${reason}`);
    expect(await page.getByTestId("link-disabled-reason").textContent()).toContain("Only the operator of this service can enable it again.");
    expect(await page.getByRole("button", { name: /enable/i }).count()).toBe(0);
    await screenshot(page, "e2e-admin-13-owner-link-form");
    await signOut(page);
  });
  it("a plan downgrade waits for a confirmation naming what the account loses: cancel keeps the plan, confirm changes it", async () => {
    const page = await freshPage();
    const email = `downgrade-${stamp}@example.com`;
    const account = await fixture.server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    const planOnServer = () => page.evaluate(async (id) => (await (await fetch(`/api/admin/accounts/${id}`)).json()).account.plan as string, account.id);
    await signInPage(page, operator, PASSWORD);
    await page.goto(`/app/admin/accounts?q=${encodeURIComponent(email)}`);
    const row = page.getByTestId("account-row").filter({ hasText: email });
    await row.waitFor();

    await row.getByTestId("account-plan").selectOption("free");
    const dialog = page.locator("dialog[open]");
    await dialog.getByTestId("plan-change-consequences").waitFor();
    expect(await dialog.locator("h2").textContent()).toBe("Downgrade this account?");
    expect(await dialog.getByTestId("plan-change-summary").textContent()).toContain(`${email} moves from Business to Free`);
    const consequences = await dialog.getByTestId("plan-change-consequences").locator("li").allTextContents();
    // The words come from the capability table (issue 40): every capability Business has and Free lacks.
    expect(consequences).toEqual([
      "Loses expiry dates, start dates, click limits, fallback URLs, social previews, advanced statistics, unique visitors, statistics CSV export, bio pages, redirect rules and A/B splits, account analytics, bulk creation, team members, custom domains, the external API, webhooks, click streams, conversion tracking, folders and shared statistics.",
      "Links keep their redirect rules and splits, which go on working; they can only be removed, not edited.",
      "Team: members lose access to the account's links.",
      "Webhooks: deliveries stop at once.",
      "Click streams: publishing stops at once; events still waiting are dropped.",
      "At most 100 links (it owns 0).",
    ]);
    expect(await dialog.getByTestId("confirm-ok").textContent()).toBe("Move to Free");
    await screenshot(page, "e2e-admin-18-downgrade-confirmation");

    // Cancel: nothing changes, on the server or in the dropdown.
    await dialog.getByTestId("confirm-cancel").click();
    await page.locator("dialog[open]").waitFor({ state: "detached" });
    expect(await row.getByTestId("account-plan").inputValue()).toBe("business");
    expect(await planOnServer()).toBe("business");

    // Choose again, confirm: the plan changes.
    await row.getByTestId("account-plan").selectOption("pro");
    expect(await page.locator("dialog[open]").getByTestId("plan-change-consequences").locator("li").allTextContents()).toEqual([
      "Loses redirect rules and A/B splits, account analytics, bulk creation, team members, custom domains, the external API, webhooks, click streams, conversion tracking, folders and shared statistics.",
      "Links keep their redirect rules and splits, which go on working; they can only be removed, not edited.",
      "Team: members lose access to the account's links.",
      "Webhooks: deliveries stop at once.",
      "Click streams: publishing stops at once; events still waiting are dropped.",
      "At most 5,000 links (it owns 0).",
    ]);
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await page
      .getByTestId("accounts-notice")
      .filter({ hasText: `${email} is now on the Pro plan.` })
      .waitFor();
    expect(await row.getByTestId("account-plan").inputValue()).toBe("pro");
    expect(await planOnServer()).toBe("pro");
  });
});
