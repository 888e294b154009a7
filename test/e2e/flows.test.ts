// Browser test of the forms and flows: every field's error at once (before sending and from the server),
// the created-link view, bulk CSV lines, plan gates; screenshots in light and dark, 1280 and 390 px.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, signInPage, startBrowserFixture, screenshotModes, type BrowserFixture } from "./browser.js";

const available = browserAvailable();

/** The page at both widths and in both colour schemes. */
const shots = (page: Page, name: string) => screenshotModes(page, `flows-${name}`);

describe.skipIf(!available)("forms and flows in the browser", () => {
  let fixture: BrowserFixture;
  const password = "flows-password-1";
  const business = `biz-${Date.now()}@example.com`;
  const free = `free-${Date.now()}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    await fixture.server.ctx.accounts.create({ email: business, password, plan: "business", verified: true });
    await fixture.server.ctx.accounts.create({ email: free, password, plan: "free", verified: true });
    fixture.server.ctx.blocklist.setConsoleHosts(["blocked.example"]);
  });
  afterAll(async () => fixture?.close());

  it("sign-up marks every wrong field before sending, and the server's answer beside its field", async () => {
    const page = fixture.browser.page;
    await page.goto("/app/signup");
    await page.getByTestId("signup-email").fill("not-an-email");
    await page.getByTestId("signup-password").fill("short");
    await page.getByTestId("signup-submit").click();
    const form = page.getByTestId("signup-form");
    await form.getByText("Enter an email address such as you@example.com").waitFor();
    await form.getByText("Use at least 10 characters").waitFor();
    await shots(page, "signup-errors");
    // The address is taken: the server's 409 is shown.
    await page.getByTestId("signup-email").fill(business);
    await page.getByTestId("signup-password").fill("long enough password");
    await page.getByTestId("signup-submit").click();
    await form.getByText(/already/).waitFor();
    expect(await form.getByText("Use at least 10 characters").count()).toBe(0);
  });

  it("the link form marks every wrong field, before sending and from the server", async () => {
    const page = fixture.browser.page;
    await signInPage(page, business, password);
    await page.goto("/app/links/new");
    // "example.com" would be taken as https://example.com (issue 40): a word with no dot is no address.
    await page.getByTestId("link-url").fill("example");
    await page.getByTestId("link-alias").fill("a!");
    await page.getByTestId("option-limits-toggle").click();
    await page.getByTestId("link-max-clicks").fill("0");
    await page.getByTestId("link-submit").click();
    const form = page.getByTestId("link-form");
    await form.getByText("Enter a full URL such as https://example.com").waitFor();
    await form.getByText("Use 3 to 64 letters, digits, '-' or '_'").waitFor();
    await form.getByText("Enter a whole number from 1 to 1,000,000,000").waitFor();
    await shots(page, "link-form-errors");
    // The server's answer: a blocked host and a blocked iOS destination, each beside its field.
    await page.getByTestId("link-url").fill("https://blocked.example/x");
    await page.getByTestId("link-alias").fill("");
    await page.getByTestId("link-max-clicks").fill("");
    await page.getByTestId("option-devices-toggle").click();
    await page.getByTestId("link-ios-url").fill("https://app.blocked.example/");
    await page.getByTestId("link-submit").click();
    await form.getByText("This host (blocked.example) is blocked on this service").first().waitFor();
    expect(await form.getByText("This host (blocked.example) is blocked on this service").count()).toBe(2);
  });

  it("after creating: short URL, copy, crisp QR, downloads, the settings, Edit and Statistics", async () => {
    const page = fixture.browser.page;
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://example.com/created-view");
    await page.getByTestId("link-alias").fill("created-view");
    await page.getByTestId("option-limits-toggle").click();
    await page.getByTestId("link-max-clicks").fill("25");
    await page.getByTestId("option-password-toggle").click();
    await page.getByTestId("link-password").fill("secret");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-link").waitFor();
    expect(await page.getByTestId("short-url").textContent()).toBe(`${fixture.server.url}/created-view`);
    expect(await page.getByTestId("summary-url").textContent()).toBe("https://example.com/created-view");
    expect(await page.getByTestId("summary-max-clicks").textContent()).toBe("25 clicks");
    expect(await page.getByTestId("summary-password").textContent()).toBe("Yes");
    expect(await page.getByTestId("summary-expires").textContent()).toBe("Never");
    const qr = page.getByTestId("qr-image");
    await page.waitForFunction(() => document.querySelector("[data-testid=qr-image]")?.getAttribute("data-px-per-module"));
    const { perModule, width } = await qr.evaluate((img: HTMLImageElement) => ({ perModule: Number(img.dataset.pxPerModule), width: img.width }));
    expect(Number.isInteger(perModule) && perModule >= 1).toBe(true);
    // The width is the modules times a whole number (device pixel ratio 1 here).
    expect(width % perModule).toBe(0);
    expect(await page.getByTestId("qr-svg").getAttribute("href")).toBe("/api/qr/created-view");
    expect(await page.getByTestId("qr-png").getAttribute("href")).toMatch(/^\/api\/qr\/created-view\?format=png&size=\d+$/);
    const png = await page.request.get((await page.getByTestId("qr-png").getAttribute("href")) as string);
    expect(png.headers()["content-type"]).toContain("image/png");
    await shots(page, "created-link");
    await page.getByTestId("created-stats").click();
    await page.waitForURL(/\/app\/links\/[^/]+\/stats$/);
    await page.goBack();
  });

  it("bulk: url and url,alias lines, a result per line as CSV, created lines leave the box", async () => {
    const page = fixture.browser.page;
    await page.goto("/app/links/bulk");
    await page
      .getByTestId("bulk-urls")
      .fill(["https://example.com/b1", "https://example.com/b2,bulk-two", "nope,bulk-three", '"https://example.com/q?a=1,2",bulk-four'].join("\n"));
    await page.getByTestId("bulk-submit").click();
    await page.getByTestId("bulk-results").waitFor();
    const rows = page.getByTestId("bulk-result-row");
    expect(await rows.count()).toBe(4);
    expect(await rows.nth(1).textContent()).toContain(`${fixture.server.url}/bulk-two`);
    expect(await rows.nth(2).textContent()).toContain("Enter a full URL such as https://example.com");
    expect(await rows.nth(3).textContent()).toContain(`${fixture.server.url}/bulk-four`);
    expect(await page.getByTestId("bulk-urls").inputValue()).toBe("nope,bulk-three");
    const download = page.waitForEvent("download");
    await page.getByTestId("bulk-results-csv").click();
    const csv = await (await download).createReadStream();
    let text = "";
    for await (const chunk of csv) text += String(chunk);
    expect(text.split("\n")[0]).toBe("line,url,alias,status,short_url,code,message");
    expect(text).toContain(`2,https://example.com/b2,bulk-two,created,${fixture.server.url}/bulk-two,,`);
    expect(text).toContain(`"https://example.com/q?a=1,2",bulk-four,created`);
    await shots(page, "bulk");
  });

  it("domains: a pasted address keeps its host name; a loopback CNAME_TARGET is called out", async () => {
    const page = fixture.browser.page;
    await page.goto("/app/domains");
    await page.getByTestId("domain-hostname").fill("https://Links.Flows.Example/");
    await page.getByTestId("domain-add").click();
    const row = page.locator('[data-testid="domain-row"][data-hostname="links.flows.example"]');
    await row.waitFor();
    // The test server's BASE_URL host is 127.0.0.1, CNAME_TARGET's default.
    expect(await row.getByTestId("record-cname-value").textContent()).toBe("127.0.0.1");
    expect(await row.getByTestId("cname-loopback").textContent()).toContain("CNAME_TARGET");
    await shots(page, "domains");
  });

  it("a free account sees which plan has a feature and whom to ask, and marked nav entries", async () => {
    const page = fixture.browser.page;
    await page.getByTestId("sign-out").click();
    await signInPage(page, free, password);
    expect(await page.getByTestId("plan-mark-bulk_create").textContent()).toBe("Business");
    expect(await page.getByTestId("plan-mark-webhooks").textContent()).toBe("Business");
    expect(await page.getByTestId("plan-mark-custom_domains").textContent()).toBe("Business");
    await page.getByTestId("nav-bulk").click();
    await page.getByTestId("plan-gate").waitFor();
    expect(await page.getByTestId("plan-gate").textContent()).toContain("Bulk creation: on the Business plan and above; your account is on Free.");
    expect(await page.getByTestId("plan-gate-how").textContent()).toContain("ask the operator of this service");
    await shots(page, "plan-gate-bulk");
    await page.goto("/app/domains");
    await page.getByTestId("domains-gated").waitFor();
    await shots(page, "plan-gate-domains");
    await page.goto("/app/profile");
    await page.getByTestId("plan-how").waitFor();
    await shots(page, "profile");
  });
});
