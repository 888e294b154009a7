// Browser test of start dates, redirect codes and robots in the link form, and of orphan visits in the
// operator console and on the domains page ("Create this alias" opens the form with the alias filled in),
// on both engines; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ENGINES } from "../helpers/engines.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { hit } from "../helpers/host.js";

const available = browserAvailable();

describe.skipIf(!available).each(ENGINES)("link start, redirect code, robots and orphan visits in the browser (%s)", (engine) => {
  let f: BrowserFixture;
  const email = `details-${engine}@example.com`;
  const opEmail = `details-op-${engine}@example.com`;
  const password = "details-password-1";
  let ownerId = "";

  beforeAll(async () => {
    f = await startBrowserFixture({ engine, env: { NOT_FOUND_PER_MINUTE: "0" } });
    ownerId = (await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true })).id;
    await f.server.ctx.accounts.create({ email: opEmail, password, plan: "free", verified: true, admin: true });
    await verifiedDomain(f.server, `dom-e2e-orphans-${engine}`, ownerId, "go.poster.example");
  });
  afterAll(async () => f?.close());

  it("creates a link that opens tomorrow, answers 308 and is crawlable; the form shows them back", async () => {
    const page = f.browser.page;
    await signInPage(page, email, password);
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://example.com/launch");
    await page.getByTestId("link-alias").fill("launch-e2e");
    const tomorrow = new Date(Date.now() + 86_400_000);
    const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByTestId("option-delivery-toggle").click();
    await page.getByTestId("link-starts-at").fill(local);
    await page.getByTestId("link-redirect-status").selectOption("308");
    await page.getByTestId("link-crawlable").check();
    await page.getByTestId("link-redirect-status").scrollIntoViewIfNeeded();
    await screenshotModes(page, "e2e-details-form");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    const row = await f.server.ctx.storage.db.selectFrom("links").selectAll().where("alias", "=", "launch-e2e").executeTakeFirstOrThrow();
    expect([row.redirect_status, Number(row.crawlable), Number(row.starts_at) > Date.now()]).toEqual([308, 1, true]);
    // The link's page says all three.
    expect(await page.getByTestId("summary-starts").textContent()).not.toBe("");
    expect(await page.getByTestId("summary-redirect-status").textContent()).toBe("308 permanent, method kept (browsers may cache it)");
    expect(await page.getByTestId("summary-crawlable").textContent()).toBe("May follow it (listed in robots.txt)");
    await screenshotModes(page, "e2e-details-link-page");
    // Not open yet: the visitor's page says when.
    await page.goto("/launch-e2e");
    expect(await page.locator("h1").textContent()).toBe("This link is not open yet");
    await page.goto(`/app/links/${row.id}/edit`);
    expect(await page.getByTestId("link-redirect-status").inputValue()).toBe("308");
    expect(await page.getByTestId("link-crawlable").isChecked()).toBe(true);
    expect(await page.getByTestId("link-starts-at").inputValue()).toBe(local);
    expect(await (await fetch(`${f.server.url}/robots.txt`)).text()).toContain("Allow: /launch-e2e$");
  });

  it("a domain's owner sees its missing paths and creates the alias in one click", async () => {
    for (let i = 0; i < 3; i++) expect((await hit(f.server.url, "/summer-sael", "go.poster.example")).status).toBe(404);
    expect((await hit(f.server.url, "/wp-admin/setup.php", "go.poster.example")).status).toBe(404);
    const page = f.browser.page;
    await page.goto("/app/domains");
    await page.getByTestId("domain-orphans").locator("summary").click();
    await page.getByTestId("domain-orphan-visits").waitFor();
    expect(await page.getByTestId("orphan-total").textContent()).toBe("4");
    const rows = page.getByTestId("orphan-path-row");
    expect(await rows.allTextContents()).toEqual(["/summer-sael3Create this alias", "/wp-admin/setup.php1"]);
    await screenshotModes(page, "e2e-details-domain-orphans");
    await rows.first().getByTestId("orphan-create").click();
    await page.waitForURL((u) => u.pathname === "/app/links/new");
    expect(await page.getByTestId("link-alias").inputValue()).toBe("summer-sael");
    expect(await page.getByTestId("link-domain").inputValue()).toBe("go.poster.example");
    await page.getByTestId("link-url").fill("https://example.com/summer-sale");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    const r = await hit(f.server.url, "/summer-sael", "go.poster.example");
    expect([r.status, r.location]).toEqual([302, "https://example.com/summer-sale"]);
  });

  it("the operator console shows every host's orphan visits; empty state", async () => {
    const page = f.browser.page;
    await page.context().clearCookies();
    await signInPage(page, opEmail, password);
    await page.route("**/api/admin/orphan-visits", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({ status: "success", orphans: { days: 30, total: 0, by_day: [], top_paths: [], referrers: [], devices: [] } }),
      }),
    );
    await page.goto("/app/admin");
    await page.getByTestId("orphan-empty").waitFor();
    await page.unroute("**/api/admin/orphan-visits");
    await hit(f.server.url, "/old-flyer", "127.0.0.1");
    await page.reload();
    await page.getByTestId("overview-orphans").getByTestId("orphan-paths").waitFor();
    const texts = await page.getByTestId("overview-orphans").getByTestId("orphan-path-row").allTextContents();
    expect(texts).toContain("main host/old-flyer1Create this alias");
    expect(texts).toContain("go.poster.example/wp-admin/setup.php1");
    await page.getByTestId("overview-orphans").scrollIntoViewIfNeeded();
    await screenshotModes(page, "e2e-details-operator-orphans");
  });
});
