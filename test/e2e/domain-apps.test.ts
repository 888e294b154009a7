// Browser test of a domain's apps (docs/deep-links.md): the section opens on the Domains page, a wrong app id is
// refused beside its field, a right one is saved, and the two files show as iOS and Android read them; the domain
// then serves them. Screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { verifiedDomain } from "../helpers/verified-domain.js";
import { withHost } from "../helpers/host.js";

const available = browserAvailable();
const HOST = "go.apps-e2e.test";
const FP = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5";

describe.skipIf(!available)("a domain's apps in the browser", () => {
  let f: BrowserFixture;
  const email = "apps-e2e@example.com";
  const password = "business-password-1";

  beforeAll(async () => {
    f = await startBrowserFixture();
    const user = await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    await verifiedDomain(f.server, "dom_apps_e2e", user.id, HOST);
  });
  afterAll(async () => f?.close());

  it("refuses a wrong app id beside its field, saves the apps, shows both files, and the domain serves them", async () => {
    const page = f.browser.page;
    await signInPage(page, email, password);
    await page.getByTestId("nav-domains").click();
    const card = page.getByTestId("domain-row");
    await card.getByTestId("domain-apps").locator("summary").click();
    await card.getByTestId("apps-form").waitFor();
    expect(await card.getByTestId("app-files").textContent()).toContain("not served (no app)");

    await card.getByTestId("add-ios-app").click();
    await card.getByLabel("App ID (TEAMID.bundle.id)").fill("com.example.shop");
    await card.getByTestId("apps-save").click();
    const fieldError = card.getByTestId("ios-dom_apps_e2e-0-app-error");
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toContain("TEAMID.bundle.id");
    expect((await withHost(f.server.url, "/.well-known/apple-app-site-association", HOST)).status).toBe(404);

    await card.getByLabel("App ID (TEAMID.bundle.id)").fill("ABCDE12345.com.example.shop");
    await card.getByLabel("Paths it opens, one per line").fill("/promo/*\n/p?");
    await card.getByTestId("add-android-app").click();
    await card.getByLabel("Package name").fill("com.example.shop");
    await card.getByLabel("SHA-256 certificate fingerprints, one per line").fill(FP.toLowerCase());
    await card.getByTestId("apps-save").click();
    await card.getByTestId("android-file").waitFor();
    const android = JSON.parse((await card.getByTestId("android-file").textContent()) ?? "");
    expect(android[0].target).toEqual({ namespace: "android_app", package_name: "com.example.shop", sha256_cert_fingerprints: [FP] });
    const apple = JSON.parse((await card.getByTestId("apple-file").textContent()) ?? "");
    expect(apple.applinks.details[0].appIDs).toEqual(["ABCDE12345.com.example.shop"]);
    expect(apple.applinks.details[0].components.slice(-2)).toEqual([{ "/": "/promo/*" }, { "/": "/p?" }]);
    // The fingerprint comes back in upper case, as stored; the domain serves what the page shows.
    expect(await card.getByLabel("SHA-256 certificate fingerprints, one per line").inputValue()).toBe(FP);
    const served = await withHost(f.server.url, "/.well-known/assetlinks.json", HOST);
    expect([served.status, JSON.parse(served.body)]).toEqual([200, android]);
    await screenshotModes(page, "e2e-domain-apps");
  });

  it("sets the account's default way out of in-app browsers from the Domains page, kept after a reload", async () => {
    const page = f.browser.page;
    // Signed in by the test above.
    await page.goto("/app/domains");
    const box = page.getByTestId("open-outside-default");
    await expect.poll(() => box.isEnabled()).toBe(true);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await page.getByTestId("open-outside-saved").waitFor();
    const user = await f.server.ctx.accounts.requireByEmail(email);
    const stored = await f.server.ctx.storage.db.selectFrom("users").select("open_outside").where("id", "=", user.id).executeTakeFirstOrThrow();
    expect(stored.open_outside).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByTestId("open-outside-default").isEnabled()).toBe(true);
    expect(await page.getByTestId("open-outside-default").isChecked()).toBe(true);
    await screenshotModes(page, "e2e-open-outside");
  });
});
