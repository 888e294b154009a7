// Browser test of the team's audit log (docs/audit.md): the Enterprise owner reaches it from the Team page, sees the
// team's entries (not another team's), filters by action and days, pages, and downloads CSV and JSON of what the
// filters select; an admin reaches it from the administered team's page, a member sees no link to it and the page
// answers with the server's refusal; empty, loading and error states. Screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/storage/schema.js";

const available = browserAvailable();
const PASSWORD = "audit-password-1";

describe.skipIf(!available)("the team's audit log in the browser", () => {
  let f: BrowserFixture;
  let owner: UserRow;
  let admin: UserRow;
  let member: UserRow;
  let other: UserRow;

  beforeAll(async () => {
    f = await startBrowserFixture();
    const accounts = f.server.ctx.accounts;
    owner = await accounts.create({ email: "owner@audit.example", password: PASSWORD, plan: "enterprise", verified: true, name: "Olga Owner" });
    admin = await accounts.create({ email: "adam@audit.example", password: PASSWORD, verified: true, name: "Adam Admin" });
    member = await accounts.create({ email: "mia@audit.example", password: PASSWORD, verified: true, name: "Mia Member" });
    other = await accounts.create({ email: "otto@audit.example", password: PASSWORD, plan: "enterprise", verified: true });
    const db = f.server.ctx.storage.db;
    for (const [m, role] of [
      [admin, "admin"],
      [member, "member"],
    ] as const) {
      await db.insertInto("team_members").values({ owner_id: owner.id, member_id: m.id, joined_at: Date.now(), joined_by: "sso", role }).execute();
    }
    const audit = (actor: UserRow, at: number, action: string, targetId: string, summary: string, teamId: string, before?: unknown, after?: unknown) =>
      db.transaction().execute((trx) => f.server.ctx.audit.record(trx, actor, at, { action, targetType: "account", targetId, summary, before, after, teamId }));
    const day = Date.UTC(2026, 10, 3, 9, 30);
    for (let i = 0; i < 55; i++)
      await audit(
        owner,
        day - (i + 1) * 3_600_000,
        "team.role",
        member.id,
        `${owner.email} made ${member.email} viewer`,
        owner.id,
        { role: "member" },
        { role: "viewer" },
      );
    await audit(
      owner,
      day,
      "sso.update",
      "conn-1",
      `${owner.email} changed single sign-on`,
      owner.id,
      { issuer: "https://old.idp.test" },
      { issuer: "https://idp.test" },
    );
    await audit(other, day, "team.role", "someone", "another team's change", other.id);
  });
  afterAll(async () => f?.close());

  const signOut = async (page: Page) => {
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  };

  it("the owner opens it from the Team page, filters, pages and exports", async () => {
    const page = f.browser.page;
    await signInPage(page, owner.email, PASSWORD);
    await page.goto("/app/team");
    await page.getByTestId("team-audit-link").click();
    await page.waitForURL("**/app/team/audit");
    const rows = page.getByTestId("audit-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(50);
    expect(await rows.first().getByTestId("audit-summary").textContent()).toBe(`${owner.email} changed single sign-on`);
    expect(await page.getByText("another team's change").count()).toBe(0);
    await screenshotModes(page, "e2e-team-audit-01-list");

    await page.getByTestId("team-audit-load-more").click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-row"]').length === 56);

    await page.getByTestId("team-audit-action").selectOption("sso.update");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-row"]').length === 1);
    expect(await rows.first().getByTestId("audit-changes").textContent()).toContain("https://idp.test");

    await page.getByTestId("team-audit-action").selectOption("");
    await page.getByTestId("team-audit-from").fill("2026-11-02");
    await page.getByTestId("team-audit-to").fill("2026-11-02");
    await page.getByTestId("team-audit-submit").click();
    await page.waitForURL(/from=2026-11-02/);
    // Nov 2nd (UTC): the hours 00:30 .. 23:30 of the role changes, 24 of them.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-row"]').length === 24);

    const csvHref = await page.getByTestId("team-audit-csv").getAttribute("href");
    expect(csvHref).toBe("/api/team/audit.csv?from=2026-11-02&to=2026-11-02");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("team-audit-csv").click()]);
    const csv = readFileSync((await download.path())!, "utf8");
    const records = parse(csv.replace(/^\uFEFF/, "")) as string[][];
    expect(records[0]).toEqual(["id", "at", "actor_id", "actor_email", "actor_role", "action", "target_type", "target_id", "summary", "before", "after"]);
    expect(records.slice(1).map((r) => r[5])).toEqual(Array.from({ length: 24 }, () => "team.role"));
    const [jsonDownload] = await Promise.all([page.waitForEvent("download"), page.getByTestId("team-audit-json").click()]);
    const json = JSON.parse(readFileSync((await jsonDownload.path())!, "utf8")) as unknown[];
    expect(json).toHaveLength(24);

    await page.getByTestId("team-audit-from").fill("2030-01-01");
    await page.getByTestId("team-audit-to").fill("2030-01-02");
    await page.getByTestId("team-audit-submit").click();
    await page.getByText("No entry matches").waitFor();
    await screenshotModes(page, "e2e-team-audit-02-empty");
    await signOut(page);
  });

  it("an admin opens it from the team it administers; a member has no link, and the page shows the refusal", async () => {
    const page = f.browser.page;
    await signInPage(page, admin.email, PASSWORD);
    await page.goto(`/app/team/${owner.id}`);
    await page.getByTestId("team-audit-link").click();
    await page.waitForURL(`**/app/team/${owner.id}/audit`);
    await page.getByTestId("audit-row").first().waitFor();
    expect(await page.getByTestId("audit-row").count()).toBe(50);
    // Its own account is not on Enterprise: no link on its own Team page.
    await page.goto("/app/team");
    await page.getByRole("heading", { name: "Team", exact: true }).waitFor();
    expect(await page.getByTestId("team-audit-link").count()).toBe(0);
    await signOut(page);

    await signInPage(page, member.email, PASSWORD);
    await page.goto(`/app/team/${owner.id}/audit`);
    await page.getByTestId("team-audit-error").waitFor();
    expect(await page.getByTestId("team-audit-error").textContent()).toMatch(/does not allow|role/i);
    await screenshotModes(page, "e2e-team-audit-03-refused");
    await signOut(page);
  });
});
