// Browser test of the SAML tab on the single sign-on page (docs/sso.md, SAML): an Enterprise owner switches the
// connection to SAML 2.0, sees snip's service-provider details with copy buttons, pastes the identity provider's
// metadata (a real one on loopback, test/helpers/saml-idp.ts) and sees what snip read from it; a hostile metadata
// address is refused on its field. Screenshots at 1280 and 390 px in both themes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { TestSamlIdp } from "../helpers/saml-idp.js";

const available = browserAvailable();

describe.skipIf(!available)("the SAML tab of the single sign-on page", () => {
  let idp: TestSamlIdp;
  let f: BrowserFixture;

  beforeAll(async () => {
    idp = await TestSamlIdp.start();
    f = await startBrowserFixture({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
    await f.server.ctx.accounts.create({ email: "owner@owner.test", password: "owner-password-1", plan: "enterprise", verified: true });
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await idp?.close();
  });

  it("switches to SAML, shows snip's details to copy, and takes the provider's metadata", async () => {
    const page = f.browser.page;
    await signInPage(page, "owner@owner.test", "owner-password-1");
    await page.getByTestId("nav-sso").first().click();
    await page.getByTestId("sso-form").waitFor();
    await page.getByTestId("sso-protocol-saml").click();
    expect(await page.getByTestId("sso-issuer").count()).toBe(0);
    await page.getByTestId("sso-domains-input").fill("acme.test");
    await page.getByTestId("sso-save").click();
    await page.getByTestId("sso-saml").waitFor();
    const id = (await f.server.ctx.storage.db.selectFrom("sso_connections").select("id").executeTakeFirstOrThrow()).id;
    const base = `${f.server.url}/api/sso/saml/${id}`;
    expect(await page.getByTestId("saml-entity-id").textContent()).toBe(`${base}/metadata`);
    expect(await page.getByTestId("saml-acs-url").textContent()).toBe(`${base}/acs`);
    expect(await page.getByTestId("saml-start-url").textContent()).toBe(`${base}/start`);
    expect(await page.getByTestId("saml-certificate").textContent()).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(await page.getByTestId("saml-acs-url-copy").count()).toBe(1);

    // A hostile address: refused on its field.
    await page.getByTestId("saml-source-url").click();
    await page.getByTestId("saml-metadata-url-input").fill("http://169.254.169.254/latest/meta-data");
    await page.getByTestId("saml-save").click();
    await page.getByTestId("saml-metadata-url-input-error").waitFor();

    await page.getByTestId("saml-source-xml").click();
    await page.getByTestId("saml-metadata-xml").fill(idp.metadata());
    await page.getByTestId("saml-save").click();
    await page.getByTestId("saml-saved").waitFor();
    expect(await page.getByTestId("saml-idp-entity").textContent()).toBe(idp.entityId);
    await screenshotModes(page, "e2e-sso-saml-01-tab");
  });
});
