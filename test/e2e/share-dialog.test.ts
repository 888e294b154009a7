// The statistics page's "Share" dialog (docs/sharing.md) in real Chromium: a Business owner makes a shared page with two
// panels and a password, copies its address, opens it signed out (the password form, then the panels), and revokes it
// (the address then answers 404); the dialog passes axe at 1280 and 390 px in light and dark. A tag's statistics are
// shared from the analytics page filtered by the tag, a folder's from the link list showing the folder (each dialog
// passes axe too). Screenshots of the three dialogs at 1280 and 390 px, light and dark, in SNIP_SHOTS_DIR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, seriousAxeProblems, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";

const available = browserAvailable();

describe.skipIf(!available)("the Share dialog of a link's statistics", () => {
  let fixture: BrowserFixture;
  let linkId = "";
  let tagId = "";
  let folderId = "";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const owner = await signedInClient(fixture.server, "share-dialog@example.com", "business");
    linkId = (await createLink(owner, { url: "https://shop.example.com/spring", title: "Spring sale" })).id;
    tagId = (await owner.post("/api/tags", { name: "Campaign" })).body.tag.id;
    folderId = (await owner.post("/api/folders", { name: "Clients" })).body.folder.id;
    await owner.patch(`/api/links/${linkId}`, { tags: ["Campaign"], folder_id: folderId });
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

  it("shares a tag from the analytics page and a folder from the link list", async () => {
    const page = fixture.browser.page;
    const shares = () => fixture.server.ctx.storage.db.selectFrom("shares").select(["tag_id", "folder_id", "link_id"]).orderBy("created_at").execute();
    const before = (await shares()).length;
    await page.goto(`/app/analytics?tag=${tagId}`);
    await page.getByTestId("stats-share").click();
    let dialog = page.getByTestId("share-dialog");
    await dialog.getByTestId("share-empty").waitFor();
    await expect(dialog.getByRole("heading").textContent()).resolves.toBe("Share this tag's statistics");
    await dialog.getByTestId("share-create").click();
    await dialog.getByTestId("share-row").waitFor();
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshotModes(page, "share-dialog-tag");
    await dialog.getByTestId("share-close").click();

    await page.goto(`/app?folder_id=${folderId}`);
    await page.getByTestId("folder-head").getByTestId("stats-share").click();
    dialog = page.getByTestId("share-dialog");
    // The tag's page is not the folder's: this one starts empty.
    await dialog.getByTestId("share-empty").waitFor();
    await expect(dialog.getByRole("heading").textContent()).resolves.toBe("Share this folder's statistics");
    await dialog.getByTestId("share-create").click();
    await dialog.getByTestId("share-row").waitFor();
    expect(await dialog.getByTestId("share-row").count()).toBe(1);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await screenshotModes(page, "share-dialog-folder");
    expect((await shares()).slice(before)).toEqual([
      { tag_id: tagId, folder_id: null, link_id: null },
      { tag_id: null, folder_id: folderId, link_id: null },
    ]);
    const url = await dialog.getByLabel("Address of the shared page").inputValue();
    const visitor = await fixture.browser.context.newPage();
    expect((await visitor.goto(new URL(url).pathname))?.status()).toBe(200);
    expect(await visitor.getByRole("heading", { level: 1 }).textContent()).toContain("Clients");
    await visitor.close();
  });
});
