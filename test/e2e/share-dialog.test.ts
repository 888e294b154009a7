// The statistics page's "Share" dialog (docs/sharing.md) in real Chromium: a Business owner makes a shared page with two
// panels and a password, copies its address, opens it signed out (the password form, then the panels), and revokes it
// (the address then answers 404); the dialog passes axe at 1280 and 390 px in light and dark. Screenshots in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, seriousAxeProblems, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

const available = browserAvailable();

describe.skipIf(!available)("the Share dialog of a link's statistics", () => {
  let fixture: BrowserFixture;
  let linkId = "";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const owner = await signedInClient(fixture.server, "share-dialog@example.com", "business");
    linkId = (await createLink(owner, { url: "https://shop.example.com/spring", title: "Spring sale" })).id;
  });
  afterAll(async () => fixture?.close());

  it("makes, shows and revokes a shared page", async () => {
    const page = fixture.browser.page;
    await signInPage(page, "share-dialog@example.com", "correct horse 1");
    await page.goto(`/app/links/${linkId}/stats`);
    await page.getByTestId("stats-share").click();
    const dialog = page.getByTestId("share-dialog");
    await dialog.getByTestId("share-empty").waitFor();
    for (const panel of ["Visitors", "Countries", "Devices, browsers and systems", "Leads, sales and revenue"]) await dialog.getByLabel(panel).uncheck();
    await dialog.getByTestId("share-password").fill("open sesame");
    await dialog.getByTestId("share-create").click();
    const url = await dialog.getByLabel("Address of the shared page").inputValue();
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{32}$/);
    expect(await dialog.getByTestId("share-row").textContent()).toContain("Password");
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshotModes(page, "share-dialog");
    const shared = (await fixture.server.ctx.storage.db.selectFrom("shares").select("panels").executeTakeFirstOrThrow()).panels;
    expect(JSON.parse(shared)).toEqual(["clicks", "referrers"]);

    // Signed out, in another page of the browser: the password, then the two panels.
    const visitor = await fixture.browser.context.newPage();
    await visitor.goto(new URL(url).pathname);
    await visitor.getByLabel("Password").fill("open sesame");
    await visitor.getByRole("button", { name: "Show the statistics" }).click();
    await visitor.getByRole("heading", { name: "Referrers" }).waitFor();
    expect(await visitor.getByRole("heading", { name: "Countries" }).count()).toBe(0);

    await dialog.getByTestId("share-revoke").click();
    await dialog.getByTestId("share-empty").waitFor();
    expect((await visitor.goto(new URL(url).pathname))?.status()).toBe(404);
    await visitor.close();
  });
});
