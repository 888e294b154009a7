// Browser test of a folder's access table (docs/folders.md, Access): an Enterprise owner opens it from the folder's
// heading, sets a member to None (the server hides the folder from it: checked through the member's own list) and
// a viewer to Write (the table shows it holds as Reads), then back to the default; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ApiClient } from "../helpers/client.js";

const available = browserAvailable();
const PASSWORD = "folder-access-password-1";

describe.skipIf(!available)("a folder's access table in the browser", () => {
  let fixture: BrowserFixture;
  let memberApi: ApiClient;
  let ownerId = "";
  let folderId = "";
  const stamp = Date.now().toString(36);
  const email = (who: string) => `facc-${who}-${stamp}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { server } = fixture;
    const db = server.ctx.storage.db;
    for (const [who, plan] of [
      ["owner", "enterprise"],
      ["member", "free"],
      ["viewer", "free"],
    ] as const)
      await server.ctx.accounts.create({ email: email(who), password: PASSWORD, plan, verified: true, name: `Facc ${who}` });
    const api = new ApiClient(server.url);
    expect((await api.login(email("owner"), PASSWORD)).status).toBe(200);
    ownerId = (await api.get("/api/profile")).body.user.id as string;
    folderId = (await api.post("/api/folders", { name: "Client Acme" })).body.folder.id as string;
    for (let i = 1; i <= 2; i++)
      expect((await api.post("/api/links", { url: `https://example.com/${i}`, alias: `facc-${stamp}-${i}`, folder_id: folderId })).status).toBe(201);
    memberApi = new ApiClient(server.url);
    expect((await memberApi.login(email("member"), PASSWORD)).status).toBe(200);
    const viewerApi = new ApiClient(server.url);
    expect((await viewerApi.login(email("viewer"), PASSWORD)).status).toBe(200);
    for (const [client, role] of [
      [memberApi, "member"],
      [viewerApi, "viewer"],
    ] as const) {
      const id = (await client.get("/api/profile")).body.user.id as string;
      await db.insertInto("team_members").values({ owner_id: ownerId, member_id: id, joined_at: Date.now(), joined_by: "sso", role }).execute();
    }
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("sets a member to None and a viewer to Write (holds as Reads), and back to the default", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email("owner"), PASSWORD);
    await page.getByTestId("side-folder").filter({ hasText: "Client Acme" }).click();
    await page.getByTestId("folder-access").click();
    const rows = page.getByTestId("folder-access-row");
    await expect.poll(() => rows.count()).toBe(2);
    const row = (who: string) => rows.filter({ hasText: email(who) });
    expect(await row("member").getByTestId("folder-access-holds").textContent()).toBe("Reads and edits");
    expect(await row("viewer").getByTestId("folder-access-holds").textContent()).toBe("Reads");

    await row("member").getByTestId("folder-access-select").selectOption("none");
    await expect.poll(() => row("member").getByTestId("folder-access-holds").textContent()).toBe("Hidden");
    await row("viewer").getByTestId("folder-access-select").selectOption("write");
    await expect.poll(() => row("viewer").getByTestId("folder-access-holds").textContent()).toBe("Reads");
    // The server hides the folder and its links from the member at once.
    expect((await memberApi.get(`/api/links?owner=${ownerId}`)).body.total).toBe(0);
    expect((await memberApi.get(`/api/folders?owner=${ownerId}`)).body.folders).toEqual([]);
    await screenshotModes(page, "folder-access-01-table");

    await row("member").getByTestId("folder-access-select").selectOption("default");
    await expect.poll(() => row("member").getByTestId("folder-access-holds").textContent()).toBe("Reads and edits");
    expect(await row("member").getByTestId("folder-access-select").inputValue()).toBe("default");
    expect((await memberApi.get(`/api/links?owner=${ownerId}`)).body.total).toBe(2);
    await page.getByTestId("folder-access-close").click();
    await expect.poll(() => page.getByTestId("folder-access-dialog").isVisible()).toBe(false);
  });
});
