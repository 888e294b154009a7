// Browser test of the Domains page against a real DNS server on loopback: empty, loading and error
// states, adding (and a refused name), the two records with copy buttons, verify with its next action,
// a link created on the verified domain and fetched with that Host header, delete with confirmation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { TestDns } from "../helpers/dns.js";
import { hit } from "../helpers/host.js";

const available = browserAvailable();
const TARGET = "cname.snip.example";

describe.skipIf(!available)("Domains page in the browser", () => {
  let dns: TestDns;
  let f: BrowserFixture;
  const email = "domains-e2e@example.com";
  const password = "business-password-1";

  beforeAll(async () => {
    dns = await TestDns.start();
    f = await startBrowserFixture({ env: { DNS_SERVERS: dns.address, CNAME_TARGET: TARGET } });
    await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    await f.browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.server.url });
  });
  afterAll(async () => {
    await f?.close();
    await dns?.close();
  });

  it("shows the loading, error and empty states", async () => {
    const page = f.browser.page;
    await signInPage(page, email, password);
    // Loading: the list answers late; error: it fails; then the real (empty) answer.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await page.route("**/api/domains", async (route) => {
      await held;
      await route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ status: "error", code: "internal_error", message: "Internal error" }),
      });
    });
    await page.getByTestId("nav-domains").click();
    await page.getByTestId("loading").waitFor();
    await screenshot(page, "e2e-domains-01-loading");
    release();
    await page.getByTestId("domains-error").waitFor();
    expect(await page.getByTestId("domains-error").textContent()).toContain("Could not load your domains: Internal error");
    await screenshot(page, "e2e-domains-02-error");
    await page.unroute("**/api/domains");
    await page.getByTestId("domains-error").getByRole("button", { name: "Try again" }).click();
    await page.getByTestId("domains-empty").waitFor();
    await screenshot(page, "e2e-domains-03-empty");
  });

  it("adds a domain, shows and copies its records, verifies it against the loopback DNS server", async () => {
    const page = f.browser.page;
    await page.getByTestId("domain-hostname").fill("10.0.0.1");
    await page.getByTestId("domain-add").click();
    await page.getByTestId("domain-hostname-error").waitFor();
    expect(await page.getByTestId("domain-hostname-error").textContent()).toBe("Enter a domain name, not an IP address");

    // A pasted address keeps its host name.
    await page.getByTestId("domain-hostname").fill("https://Go.Brand.Example/");
    await page.getByTestId("domain-add").click();
    const row = page.locator('[data-testid="domain-row"][data-hostname="go.brand.example"]');
    await row.waitFor();
    expect(await row.getByTestId("domain-status").textContent()).toBe("Pending");
    expect(await row.getByTestId("record-cname-name").textContent()).toBe("go.brand.example");
    expect(await row.getByTestId("record-cname-value").textContent()).toBe(TARGET);
    expect(await row.getByTestId("cname-loopback").count()).toBe(0);
    expect(await row.getByTestId("record-txt-name").textContent()).toBe("_snip-verify.go.brand.example");
    const txtValue = (await row.getByTestId("record-txt-value").textContent()) ?? "";
    expect(txtValue).toMatch(/^snip-verify=\w{32}$/);
    expect(await row.getByTestId("domain-last-check").textContent()).toBe("Not checked yet");

    await row.getByTestId("copy-txt-value").click();
    // The button says so once the clipboard write has resolved (it is asynchronous).
    await row.getByTestId("copy-txt-value").filter({ hasText: "Copied!" }).waitFor({ timeout: 5000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(txtValue);
    await row.getByTestId("copy-cname-value").click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(TARGET);
    await screenshot(page, "e2e-domains-04-added");

    // Verify before the records exist: still pending, and what to do.
    await row.getByTestId("domain-verify").click();
    await row
      .getByTestId("domain-last-check")
      .getByText(/^Last checked/)
      .waitFor();
    expect(await row.getByTestId("domain-next-action").textContent()).toBe(
      `Next step: No CNAME record found for go.brand.example: add a CNAME record go.brand.example -> ${TARGET}. ` +
        `No TXT record found at _snip-verify.go.brand.example: add a TXT record _snip-verify.go.brand.example with the value ${txtValue}.`,
    );
    // At once again: the throttle's message.
    await row.getByTestId("domain-verify").click();
    await row.getByTestId("domain-verify-error").waitFor();
    expect(await row.getByTestId("domain-verify-error").textContent()).toMatch(/^go\.brand\.example was checked a moment ago; try again in \d s$/);
    await screenshot(page, "e2e-domains-05-next-action");

    // The owner creates the two records exactly as the page shows them (the copied values).
    dns.cname("go.brand.example", TARGET).txt("_snip-verify.go.brand.example", [txtValue]);
    await f.server.ctx.storage.db.updateTable("domains").set({ verify_requested_at: null }).where("hostname", "=", "go.brand.example").execute();
    await row.getByTestId("domain-verify").click();
    await row.getByTestId("domain-status").getByText("Verified").waitFor();
    expect(await row.getByTestId("domain-next-action").count()).toBe(0);
    expect(await row.getByTestId("domain-last-check").textContent()).toMatch(/^Last checked .+ · verified .+$/);
    await screenshot(page, "e2e-domains-06-verified");
  });

  it("creates a link on the verified domain, lists it with its domain, and it answers with that Host header", async () => {
    const page = f.browser.page;
    await page.getByTestId("nav-new-link").click();
    const select = page.getByTestId("link-domain");
    await select.waitFor();
    expect(await select.locator("option").allTextContents()).toEqual([`${new URL(f.server.url).host} (default)`, "go.brand.example"]);
    await select.selectOption("go.brand.example");
    await page.getByLabel("Destination URL").fill("https://example.com/brand-launch");
    await page.getByLabel("Alias (optional)").fill("launch");
    await screenshot(page, "e2e-domains-07-link-form");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("short-url").waitFor();
    expect(await page.getByTestId("short-url").textContent()).toBe("http://go.brand.example/launch");

    const r = await hit(f.server.url, "/launch", "go.brand.example");
    expect(r).toMatchObject({ status: 302, location: "https://example.com/brand-launch" });
    expect((await hit(f.server.url, "/launch", new URL(f.server.url).host)).status).toBe(404);

    await page.getByTestId("nav-dashboard").click();
    const item = page.getByTestId("link-row").filter({ hasText: "go.brand.example/launch" });
    await item.waitFor();
    expect(await item.getByTestId("link-domain").textContent()).toBe("go.brand.example");
    await screenshot(page, "e2e-domains-08-links-list");
  });

  it("shows a domain whose TXT record went missing at the re-check: pending, why, and its links answer 404", async () => {
    const page = f.browser.page;
    const db = f.server.ctx.storage.db;
    const txt = (await db.selectFrom("domains").select("txt_token").where("hostname", "=", "go.brand.example").executeTakeFirstOrThrow()).txt_token;
    dns.txt("_snip-verify.go.brand.example", null);
    await db
      .updateTable("domains")
      .set({ next_check_at: Date.now() - 1 })
      .where("hostname", "=", "go.brand.example")
      .execute();
    expect(await f.server.ctx.domains.recheckDue()).toBe(1);
    expect((await hit(f.server.url, "/launch", "go.brand.example")).status).toBe(404);

    await page.getByTestId("nav-domains").click();
    const row = page.locator('[data-testid="domain-row"][data-hostname="go.brand.example"]');
    await row.getByTestId("domain-lost").waitFor();
    expect(await row.getByTestId("domain-status").textContent()).toBe("Pending");
    expect(await row.getByTestId("domain-lost").textContent()).toMatch(
      /no longer found the TXT record: links on go\.brand\.example answer “not found” until it is verified again\.$/,
    );
    expect(await row.getByTestId("domain-next-action").textContent()).toMatch(
      /^Next step: Verification lost: No TXT record found at _snip-verify\.go\.brand\.example/,
    );
    await screenshot(page, "e2e-domains-08b-lost");

    // The record is back: verify again, and the link answers.
    dns.txt("_snip-verify.go.brand.example", [`snip-verify=${txt}`]);
    await db.updateTable("domains").set({ verify_requested_at: null }).where("hostname", "=", "go.brand.example").execute();
    await row.getByTestId("domain-verify").click();
    await row.getByTestId("domain-status").getByText("Verified").waitFor();
    expect(await row.getByTestId("domain-lost").count()).toBe(0);
    expect((await hit(f.server.url, "/launch", "go.brand.example")).status).toBe(302);
  });

  it("deletes a domain after confirmation: its links answer 404", async () => {
    const page = f.browser.page;
    await page.getByTestId("nav-domains").click();
    const row = page.locator('[data-testid="domain-row"][data-hostname="go.brand.example"]');
    await row.waitFor();
    expect(await row.getByTestId("domain-links").textContent()).toBe("1 link");
    await row.getByTestId("domain-delete").click();
    const dialog = page.getByTestId("confirm-dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Its 1 link is deleted with it and stops working immediately");
    await screenshot(page, "e2e-domains-09-delete-confirm");
    await page.getByTestId("confirm-cancel").click();
    expect(await row.count()).toBe(1);
    await row.getByTestId("domain-delete").click();
    await page.getByTestId("confirm-ok").click();
    await page.getByTestId("domains-empty").waitFor();
    expect(await page.getByTestId("domain-notice").textContent()).toBe("go.brand.example deleted.");
    expect((await hit(f.server.url, "/launch", "go.brand.example")).status).toBe(404);
  });

  it("below Business: an upgrade hint instead of the form, and no domain choice on the link form", async () => {
    const page = f.browser.page;
    await f.server.ctx.accounts.create({ email: "pro-e2e@example.com", password, plan: "pro", verified: true });
    await page.getByTestId("sign-out").click();
    await signInPage(page, "pro-e2e@example.com", password);
    await page.getByTestId("nav-domains").click();
    await page.getByTestId("domains-gated").waitFor();
    expect(await page.getByTestId("domain-add-form").count()).toBe(0);
    await page.getByTestId("domains-empty").waitFor();
    await screenshot(page, "e2e-domains-10-gated");
    await page.getByTestId("nav-new-link").click();
    await page.getByTestId("link-form").waitFor();
    expect(await page.getByTestId("link-domain").count()).toBe(0);
  });
});
