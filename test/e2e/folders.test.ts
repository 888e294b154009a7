// Browser test of folders (docs/folders.md): the sidebar's folders under Links with their counts; creating one there;
// moving the list's selection into it; the list filtered by the folder chosen in the sidebar; the link form's folder
// select; renaming and deleting the folder (its links stay, in no folder); screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ApiClient } from "../helpers/client.js";

const available = browserAvailable();
const PASSWORD = "folders-password-1";
const total = (page: Page) => page.getByTestId("links-total").textContent();
const sideFolders = (page: Page) =>
  page
    .getByTestId("side-folder")
    .evaluateAll((rows) => rows.map((r) => `${r.querySelector(".side-label")?.textContent} ${r.querySelector(".side-count")?.textContent}`));

describe.skipIf(!available)("folders in the browser", () => {
  let fixture: BrowserFixture;
  let api: ApiClient;
  const stamp = Date.now().toString(36);
  const email = `folders-${stamp}@example.com`;
  const alias = (i: number) => `fold-${stamp}-${i}`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { server } = fixture;
    await server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true, name: "Fay Folders" });
    api = new ApiClient(server.url);
    expect((await api.login(email, PASSWORD)).status).toBe(200);
    expect((await api.post("/api/folders", { name: "Client Acme" })).status).toBe(201);
    for (let i = 1; i <= 6; i++) {
      const r = await api.post("/api/links", { url: `https://www.example.com/page/${i}`, alias: alias(i), title: `Page ${i}` });
      expect(r.status, r.text).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("creates a folder in the sidebar, moves links into it, filters by it, files a link from the form, renames and deletes it", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email, PASSWORD);
    await page.getByTestId("link-row").first().waitFor();
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 0"]);

    // A folder made in the sidebar; a duplicate name is refused there with the server's words.
    await page.getByTestId("folder-add").click();
    await page.getByTestId("folder-name").fill("Spring launch");
    await page.getByTestId("folder-create").click();
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 0", "Spring launch 0"]);
    await page.getByTestId("folder-add").click();
    await page.getByTestId("folder-name").fill("spring LAUNCH");
    await page.getByTestId("folder-create").click();
    expect(await page.getByTestId("folder-error").textContent()).toBe('You already have a folder named "spring LAUNCH"');
    await page.getByTestId("folder-add").click();

    // Three links selected and moved: the sidebar's count follows.
    const rows = page.getByTestId("link-row");
    for (const n of [0, 1, 2]) await rows.nth(n).getByTestId("link-select").check();
    await page.getByTestId("bulk-move").click();
    await screenshotModes(page, "folders-01-move-menu");
    await page.getByTestId("bulk-move-option").filter({ hasText: "Spring launch" }).click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Moved 3 links to “Spring launch”.");
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 0", "Spring launch 3"]);

    // The folder chosen in the sidebar filters the list, and the address keeps it.
    await page.getByTestId("side-folder").filter({ hasText: "Spring launch" }).click();
    await expect.poll(() => total(page)).toBe("3 links");
    expect(await page.getByTestId("folder-title").textContent()).toBe("Spring launch · 3 links");
    expect(new URL(page.url()).searchParams.get("folder_id")).toMatch(/\S/);
    expect(await page.getByTestId("side-folder").filter({ hasText: "Spring launch" }).getAttribute("aria-current")).toBe("page");
    // The folder is the page shown: "Your links" is not marked beside it.
    expect(await page.getByTestId("nav-dashboard").getAttribute("aria-current")).toBeNull();
    await screenshotModes(page, "folders-02-filtered");
    // The phone's menu lists the folders too.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("menu-toggle").click();
    await page.getByTestId("side-folders").waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await screenshot(page, `folders-03-phone-menu-390-${scheme}`, false);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.keyboard.press("Escape");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The link form files a link in a folder.
    await page.goto(`/app/links/new`);
    await page.getByTestId("link-url").fill("https://www.example.com/filed");
    await page.getByTestId("option-details-toggle").click();
    await page.getByTestId("link-folder").selectOption({ label: "Client Acme" });
    await screenshotModes(page, "folders-04-form");
    await page.getByTestId("link-submit").click();
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 1", "Spring launch 3"]);
    const filed = (await api.get("/api/links?folder_id=none")).body.total as number;
    expect(filed).toBe(3);

    // Rename, then delete: the links stay, in no folder.
    await page.goto("/app");
    await page.getByTestId("side-folder").filter({ hasText: "Spring launch" }).click();
    await expect.poll(() => total(page)).toBe("3 links");
    await page.getByTestId("folder-rename").click();
    await page.getByTestId("folder-rename-name").fill("Summer launch");
    await page.getByTestId("folder-rename-save").click();
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 1", "Summer launch 3"]);
    expect(await page.getByTestId("folder-title").textContent()).toBe("Summer launch · 3 links");
    await page.getByTestId("folder-delete").click();
    await screenshotModes(page, "folders-05-delete-confirm");
    await page.getByRole("dialog").getByRole("button", { name: "Delete folder" }).click();
    await expect.poll(() => sideFolders(page)).toEqual(["Client Acme 1"]);
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Deleted the folder “Summer launch”; its 3 links are in no folder now.");
    await expect.poll(() => total(page)).toBe("7 links");
    expect(new URL(page.url()).searchParams.get("folder_id")).toBeNull();
  });
});
