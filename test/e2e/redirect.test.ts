// Browser tests of the whole link life: shorten signed out and land on the destination; sign in, create
// with options, pass the password form, edit, delete and see 404; an API key made on the profile page
// works from a server-side request until it is revoked in the page.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";

const available = browserAvailable();

/** A destination site on another loopback address (links to snip's own host are refused as loops). */
async function startDestination(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Destination</title><h1 id="landed">Destination reached: ${req.url?.replace(/[<>&"]/g, "")}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  const addr = server.address();
  return { origin: `http://127.0.0.2:${typeof addr === "object" && addr ? addr.port : 0}`, server };
}

describe.skipIf(!available)("link life in the browser", () => {
  let f: BrowserFixture;
  let dest: { origin: string; server: Server };
  const email = `life-${Date.now()}@example.com`;
  const password = "life-password-1";

  beforeAll(async () => {
    dest = await startDestination();
    f = await startBrowserFixture();
    await f.server.ctx.accounts.create({ email, password, plan: "business", verified: true });
  });
  afterAll(async () => {
    await f?.close();
    await new Promise((r) => dest?.server.close(r));
  });

  it("shortens signed out from the home page; the short link leads to the destination", async () => {
    const page = f.browser.page;
    await page.goto("/");
    await page.getByLabel("Long URL").fill(`${dest.origin}/anonymous`);
    await page.getByTestId("home-submit").click();
    const shortUrl = (await page.getByTestId("short-url").textContent()) ?? "";
    expect(shortUrl).toMatch(new RegExp(`^${f.server.url}/[0-9A-Za-z]{7,}$`));
    await page.goto(shortUrl);
    expect(await page.locator("#landed").textContent()).toBe("Destination reached: /anonymous");
  });

  it("signs in, creates a link with a password and a click limit, and passes the password form", async () => {
    const page = f.browser.page;
    await signInPage(page, email, password);

    await page.goto("/app/links/new");
    await page.getByLabel("Destination URL").fill(`${dest.origin}/first`);
    await page.getByLabel("Alias (optional)").fill("life-link");
    await page.getByTestId("option-limits-toggle").click();
    await page.getByLabel("Maximum clicks").fill("5");
    await page.getByTestId("option-password-toggle").click();
    await page.getByTestId("link-password").fill("open sesame");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("short-url").textContent()).toBe(`${f.server.url}/life-link`);

    await page.goto("/life-link");
    await page.getByLabel("Password").fill("wrong");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Password").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe("Wrong password. Try again.");
    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await page.locator("#landed").textContent()).toBe("Destination reached: /first");
  });

  it("edits the destination and removes the password; the next visit goes to the new place", async () => {
    const page = f.browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").filter({ hasText: "life-link" }).getByTestId("link-menu").click();
    await page.getByTestId("link-row").filter({ hasText: "life-link" }).getByTestId("link-edit").click();
    await expect.poll(() => page.getByLabel("Destination URL").inputValue()).toBe(`${dest.origin}/first`);
    await page.getByLabel("Destination URL").fill(`${dest.origin}/second`);
    await page.getByTestId("link-remove-password").check();
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    await page.goto("/life-link");
    expect(await page.locator("#landed").textContent()).toBe("Destination reached: /second");
  });

  it("deletes the link after confirmation, and the short link answers 404", async () => {
    const page = f.browser.page;
    await page.goto("/app");
    const row = page.getByTestId("link-row").filter({ hasText: "life-link" });
    await row.getByTestId("link-menu").click();
    await row.getByTestId("link-delete").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await row.waitFor({ state: "detached" });
    const res = await page.goto("/life-link");
    expect(res?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toMatch(/not found/i);
    await screenshot(page, "e2e-redirect-404");
  });

  it("creates an API key on the Security page, uses it from a server, revokes it in the page", async () => {
    const page = f.browser.page;
    await page.goto("/app/security");
    await page.getByLabel("New key name").fill("backend");
    await page.getByTestId("key-create").click();
    const secret = ((await page.getByTestId("key-secret").textContent()) ?? "").trim();
    expect(secret).toMatch(/^snip_[A-Za-z0-9_-]{20,}$/);

    const create = (alias: string) =>
      fetch(`${f.server.url}/api/external-create.php`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `${dest.origin}/api`, alias }),
      });
    const ok = await create("from-api");
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { short_url: string }).short_url).toBe(`${f.server.url}/from-api`);

    await page.reload();
    const row = page.getByTestId("key-row").filter({ hasText: "backend" });
    await row.getByTestId("key-revoke").click();
    await page.locator("dialog[open]").getByTestId("confirm-ok").click();
    await expect.poll(() => row.textContent()).toMatch(/Revoked/);

    const refused = await create("from-api-2");
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("invalid_api_key");
  });
});

describe.skipIf(!available)("a fresh server reached at the address its log prints", () => {
  let f: BrowserFixture;
  let dest: { origin: string; server: Server };
  beforeAll(async () => {
    dest = await startDestination();
    // BASE_URL names another host (the public name a newcomer has not set up yet); the browser goes to
    // 127.0.0.1, the address the server listens on: any host that is no custom domain is the main host.
    f = await startBrowserFixture({ env: { BASE_URL: "http://sn.example" } });
  });
  afterAll(async () => {
    await f?.close();
    await new Promise((r) => dest?.server.close(r));
  });

  it("shortens at http://127.0.0.1:<port>/ and the link works there at once", async () => {
    const page = f.browser.page;
    expect(new URL(f.server.url).hostname).toBe("127.0.0.1");
    await page.goto(`${f.server.url}/`);
    await page.getByLabel("Long URL").fill(`${dest.origin}/first-minute`);
    await page.getByTestId("home-submit").click();
    const shortUrl = (await page.getByTestId("short-url").textContent()) ?? "";
    // The link carries BASE_URL's address ...
    expect(shortUrl).toMatch(/^http:\/\/sn\.example\/[0-9A-Za-z]{7,}$/);
    // ... and answers at the address the newcomer used.
    await page.goto(`${f.server.url}${new URL(shortUrl).pathname}`);
    expect(await page.locator("#landed").textContent()).toBe("Destination reached: /first-minute");
  });
});
