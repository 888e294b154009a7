// Browser test of scoped API keys on the Security page: the form's scope checkboxes (links:create preselected) and
// expiry date, the list's scopes, expiry ("Expired") and last use; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";

const available = browserAvailable();

describe.skipIf(!available)("scoped API keys on the Security page", () => {
  let fixture: BrowserFixture;
  const email = `e2e-keys-${Date.now()}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { ctx } = fixture.server;
    await ctx.accounts.create({ email, password: "correct horse 1", plan: "business", verified: true });
    const owner = await ctx.accounts.requireByEmail(email);
    // A key that has been used, and one that has expired since.
    const used = await ctx.apiKeys.create(owner, { name: "Order system", scopes: ["links:create", "links:read", "stats:read"] });
    await ctx.apiKeys.authenticate(used.secret);
    const old = await ctx.apiKeys.create(owner, { name: "Old report job", scopes: ["stats:read"], expires_at: new Date(Date.now() + 60_000).toISOString() });
    await ctx.storage.db
      .updateTable("api_keys")
      .set({ expires_at: Date.now() - 86_400_000 })
      .where("id", "=", old.key.id)
      .execute();
  });
  afterAll(async () => fixture?.close());

  it("creates a key with the chosen scopes and an expiry, and lists scopes, expiry and last use", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email, "correct horse 1");
    await page.goto("/app/security");
    const section = page.getByTestId("section-keys");
    await section.getByTestId("keys-table").waitFor();
    // The default is preselected, the others are not.
    expect(await page.getByTestId("key-scope-links:create").isChecked()).toBe(true);
    for (const s of ["links:read", "links:write", "stats:read", "export"]) expect(await page.getByTestId(`key-scope-${s}`).isChecked()).toBe(false);

    await page.getByTestId("key-name").fill("Nightly backup");
    await page.getByTestId("key-scope-links:create").uncheck();
    await page.getByTestId("key-scope-export").check();
    await page.getByTestId("key-scope-links:read").check();
    await page.getByTestId("key-expires").fill("2031-03-15");
    await screenshot(page, "e2e-keys-01-form-filled");
    await page.getByTestId("key-create").click();
    await page.getByTestId("key-secret-box").waitFor();
    expect(await page.getByTestId("key-secret").textContent()).toMatch(/^snip_[A-Za-z0-9_-]{43}$/);

    const rows = page.getByTestId("key-row");
    await expect.poll(() => rows.count()).toBe(3);
    const newest = rows.nth(0);
    expect(await newest.getByTestId("key-scopes").textContent()).toBe("links:readexport");
    expect(await newest.getByTestId("key-expires-at").textContent()).toMatch(/2031/);
    expect(await newest.getByTestId("key-last-used").textContent()).toBe("Never");
    const server = fixture.server;
    const stored = await server.ctx.storage.db
      .selectFrom("api_keys")
      .select(["scopes", "expires_at"])
      .where("name", "=", "Nightly backup")
      .executeTakeFirstOrThrow();
    expect(stored.scopes).toBe('["links:read","export"]');
    expect(new Date(Number(stored.expires_at)).getFullYear()).toBe(2031);

    const expired = rows.filter({ hasText: "Old report job" });
    expect(await expired.getByTestId("key-expired").textContent()).toBe("Expired");
    const used = rows.filter({ hasText: "Order system" });
    expect(await used.getByTestId("key-last-used").textContent()).not.toBe("Never");
    expect(await used.getByTestId("key-scopes").textContent()).toBe("links:createlinks:readstats:read");

    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    await section.scrollIntoViewIfNeeded();
    await screenshotModes(page, "e2e-keys-02-security");
    // On a phone each key is a card: the table needs no sideways scrolling, every revoke button in view.
    await page.setViewportSize({ width: 390, height: 900 });
    const wrap = section.getByTestId("keys-table").locator("xpath=..");
    expect(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    for (const b of await section.getByTestId("key-revoke").all()) expect(await b.evaluate((el) => el.getBoundingClientRect().right <= 390)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("cannot send a key without any scope", async () => {
    const page = fixture.browser.page;
    await page.getByTestId("key-name").fill("Nothing");
    await page.getByTestId("key-scope-links:create").uncheck();
    expect(await page.getByTestId("key-create").isDisabled()).toBe(true);
  });
});
