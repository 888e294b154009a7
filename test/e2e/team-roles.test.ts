// Browser test of team roles (docs/roles.md): the Enterprise owner's Team page shows each member's role with a
// select and invites with a role; the change reaches the member at once (a viewer's link list has no Edit or
// Delete, a member's no Delete, an admin's both); an admin manages the team's members and viewers from its own
// Team page, without a select for another admin; a member's New link creates in the owner's account, an admin
// manages the owner's custom domains, webhooks and streams. Screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/storage/schema.js";

const available = browserAvailable();
const PASSWORD = "roles-password-1";

describe.skipIf(!available)("team roles in the browser", () => {
  let f: BrowserFixture;
  let owner: UserRow;
  let member: UserRow;
  let admin: UserRow;
  let other: UserRow;
  let alias = "";

  beforeAll(async () => {
    f = await startBrowserFixture();
    const accounts = f.server.ctx.accounts;
    owner = await accounts.create({ email: "owner@roles.example", password: PASSWORD, plan: "enterprise", verified: true, name: "Olga Owner" });
    member = await accounts.create({ email: "mia@roles.example", password: PASSWORD, verified: true, name: "Mia Member" });
    admin = await accounts.create({ email: "adam@roles.example", password: PASSWORD, verified: true, name: "Adam Admin" });
    other = await accounts.create({ email: "otto@roles.example", password: PASSWORD, verified: true, name: "Otto Otheradmin" });
    const db = f.server.ctx.storage.db;
    for (const [m, role] of [
      [member, "member"],
      [admin, "admin"],
      [other, "admin"],
    ] as const) {
      await db.insertInto("team_members").values({ owner_id: owner.id, member_id: m.id, joined_at: Date.now(), joined_by: "sso", role }).execute();
    }
    alias = (await f.server.ctx.links.create(owner, { url: "https://example.com/roles-original", title: "Spring campaign" })).alias;
  });
  afterAll(async () => f?.close());

  const signOut = async (page: Page) => {
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  };
  const rowOf = (page: Page, email: string) => page.getByTestId("member-row").filter({ hasText: email });
  /** The row menu's items of the owner's link, as the member sees them in the team's list. */
  async function menuItems(page: Page): Promise<string[]> {
    await page.goto(`/app/shared/${owner.id}`);
    const row = page.getByTestId("link-row").filter({ hasText: alias });
    await row.getByTestId("link-menu").click();
    const items = await page.getByRole("menuitem").allTextContents();
    await page.keyboard.press("Escape");
    return items.map((t) => t.trim());
  }

  it("the owner sees roles with a select, invites with a role, and makes a member a viewer", async () => {
    const page = f.browser.page;
    await signInPage(page, owner.email, PASSWORD);
    await page.goto("/app/team");
    await rowOf(page, member.email).waitFor();
    expect(await rowOf(page, member.email).getByTestId("member-role-select").inputValue()).toBe("member");
    expect(await rowOf(page, admin.email).getByTestId("member-role-select").inputValue()).toBe("admin");
    expect(await page.getByTestId("invite-role").locator("option").allTextContents()).toEqual(["Admin", "Member", "Viewer"]);
    await page.getByLabel("Email address").fill("vera@roles.example");
    await page.getByTestId("invite-role").selectOption("viewer");
    await page.getByTestId("invite-submit").click();
    const invitation = page.getByTestId("invitation-row").filter({ hasText: "vera@roles.example" });
    expect(await invitation.getByTestId("invitation-role").textContent()).toBe("Viewer");

    await rowOf(page, member.email).getByTestId("member-role-select").selectOption("viewer");
    await page.getByTestId("team-notice").filter({ hasText: "is now viewer" }).waitFor();
    expect(await rowOf(page, member.email).getByTestId("member-role").textContent()).toBe("Viewer");
    await screenshotModes(page, "e2e-team-roles-01-owner");
    await signOut(page);
  });

  it("a viewer's list and link page offer no Edit, Archive or Delete; as member Edit returns, Delete does not", async () => {
    const page = f.browser.page;
    await signInPage(page, member.email, PASSWORD);
    const items = await menuItems(page);
    expect(items).toContain("Statistics");
    expect(items).not.toContain("Edit");
    expect(items).not.toContain("Delete");
    expect(await page.getByTestId("shared-role-note").textContent()).toContain("Your role here: Viewer.");
    // Selected, the bar says why nothing can be changed.
    await page.getByTestId("link-row").filter({ hasText: alias }).getByRole("checkbox").check();
    await page.getByTestId("bulk-read-only").waitFor();
    expect(await page.getByTestId("bulk-archive").count()).toBe(0);
    await screenshotModes(page, "e2e-team-roles-02-viewer-list");

    await page.goto("/app/team");
    expect(await page.getByTestId("membership-role").textContent()).toBe("Viewer");

    // The owner makes them a member again (through the API: the page is the viewer's); the next page shows Edit.
    await f.server.ctx.teams.changeRole(owner, member.id, "member");
    const again = await menuItems(page);
    expect(again).toContain("Edit");
    expect(again).not.toContain("Delete");
    await signOut(page);
  });

  it("a member's New link on the team's list creates the link in the owner's account", async () => {
    const page = f.browser.page;
    await signInPage(page, member.email, PASSWORD);
    await page.goto(`/app/shared/${owner.id}`);
    await page.getByTestId("shared-title").filter({ hasText: "Links of Olga Owner" }).waitFor();
    await page.getByTestId("new-link-button").click();
    await page.getByTestId("builder-dialog").getByTestId("link-form").waitFor();
    await expect.poll(() => page.getByTestId("shared-create-note").textContent()).toContain("The link you create here is the owner's");
    await page.getByTestId("link-url").fill("https://example.com/made-by-mia");
    await screenshotModes(page, "e2e-team-roles-02b-member-creates");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("created-dialog").getByTestId("created-link").waitFor();
    const made = await f.server.ctx.storage.db
      .selectFrom("links")
      .select(["owner_id", "updated_by"])
      .where("url", "=", "https://example.com/made-by-mia")
      .executeTakeFirstOrThrow();
    expect(made).toEqual({ owner_id: owner.id, updated_by: member.id });
    await page.getByTestId("created-close").click();
    await page.getByTestId("link-row").filter({ hasText: "made-by-mia" }).waitFor();
    await signOut(page);
  });

  it("an admin deletes the owner's links and manages members and viewers, not another admin", async () => {
    const page = f.browser.page;
    await signInPage(page, admin.email, PASSWORD);
    expect(await menuItems(page)).toContain("Delete");
    await page.goto("/app/team");
    await page.getByTestId("membership-manage").click();
    await page.getByTestId("managed-team-title").filter({ hasText: "Team of Olga Owner" }).waitFor();
    await rowOf(page, member.email).waitFor();
    // Another admin: a badge, no select, no Remove; a member: a select of member and viewer only.
    expect(await rowOf(page, other.email).getByTestId("member-role-select").count()).toBe(0);
    expect(await rowOf(page, other.email).getByTestId("member-remove").count()).toBe(0);
    expect(await rowOf(page, member.email).getByTestId("member-role-select").locator("option").allTextContents()).toEqual(["Member", "Viewer"]);
    expect(await page.getByTestId("invite-role").locator("option").allTextContents()).toEqual(["Member", "Viewer"]);
    await rowOf(page, member.email).getByTestId("member-role-select").selectOption("viewer");
    await page.getByTestId("team-notice").filter({ hasText: "is now viewer" }).waitFor();
    const stored = await f.server.ctx.storage.db
      .selectFrom("team_members")
      .select("role")
      .where("owner_id", "=", owner.id)
      .where("member_id", "=", member.id)
      .executeTakeFirstOrThrow();
    expect(stored.role).toBe("viewer");
    await screenshotModes(page, "e2e-team-roles-03-admin");
  });

  it("an admin adds a custom domain to the owner's account and opens the owner's webhooks and streams from the Team page", async () => {
    const page = f.browser.page;
    await page.goto("/app/team");
    await page.getByTestId("membership-domains").click();
    await page.getByTestId("managed-team-title").filter({ hasText: "Custom domains of Olga Owner" }).waitFor();
    await page.getByTestId("domains-empty").waitFor();
    await page.getByTestId("domain-hostname").fill("links.roles.example");
    await page.getByTestId("domain-add").click();
    await page.getByTestId("domain-notice").filter({ hasText: "links.roles.example added" }).waitFor();
    const stored = await f.server.ctx.storage.db
      .selectFrom("domains")
      .select("owner_id")
      .where("hostname", "=", "links.roles.example")
      .executeTakeFirstOrThrow();
    expect(stored.owner_id).toBe(owner.id);
    await screenshotModes(page, "e2e-team-roles-04-admin-domains");

    await page.goto("/app/team");
    await page.getByTestId("membership-webhooks").click();
    await page.getByTestId("managed-team-title").filter({ hasText: "Webhooks of Olga Owner" }).waitFor();
    await page.getByTestId("webhooks-empty").waitFor();
    await page.getByTestId("streams-empty").waitFor();
    await screenshotModes(page, "e2e-team-roles-05-admin-webhooks");
  });
});
