// Browser test of organising links on the list page: 55 links seeded through the API with tags and clicks (more than
// the list's page of 50); filter by two tags, sort by clicks, sparklines; archive the page's 50 through the
// multi-select and find them under state=archived; tag 50 at once; the view kept in the address (reload, Back); delete with a confirmation naming how many; a member's view
// without Delete; empty states; screenshots at 1280 and 390 px in light and dark, the phone without sideways scrolling.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ApiClient } from "../helpers/client.js";

const available = browserAvailable();
const PASSWORD = "organise-password-1";
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

/** Aliases of the rows shown, top to bottom. */
const aliases = (page: Page) =>
  page.getByTestId("link-row").evaluateAll((rows) => rows.map((r) => r.querySelector('[data-testid="link-short-url"]')?.textContent?.split("/").pop() ?? ""));
const total = (page: Page) => page.getByTestId("links-total").textContent();

describe.skipIf(!available)("organising links in the browser", () => {
  let fixture: BrowserFixture;
  let api: ApiClient;
  const stamp = Date.now().toString(36);
  const email = `organise-${stamp}@example.com`;
  const memberEmail = `organise-member-${stamp}@example.com`;
  let ownerId = "";
  /** org-01 .. org-55 (org-55 the newest); 01-06 carry both "Spring" and "Newsletter", 07-10 only "Spring". */
  const alias = (i: number) => `org-${stamp}-${String(i).padStart(2, "0")}`;
  /** Clicks of the links with both tags: a distinct count each. */
  const clicks: Record<number, number> = { 1: 2, 2: 5, 3: 0, 4: 4, 5: 1, 6: 3 };

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { server } = fixture;
    const owner = await server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true, name: "Orla Organiser" });
    ownerId = owner.id;
    const member = await server.ctx.accounts.create({ email: memberEmail, password: PASSWORD, plan: "free", verified: true, name: "Mo Member" });
    await server.ctx.storage.db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: Date.now() }).execute();
    api = new ApiClient(server.url);
    expect((await api.login(email, PASSWORD)).status).toBe(200);
    expect((await api.post("/api/tags", { name: "Spring", color: "green" })).status).toBe(201);
    expect((await api.post("/api/tags", { name: "Newsletter", color: "purple" })).status).toBe(201);
    for (let i = 1; i <= 55; i++) {
      const tags = i <= 6 ? ["Spring", "Newsletter"] : i <= 10 ? ["Spring"] : [];
      const title = i % 2 === 0 ? `Campaign page ${i}` : undefined;
      const r = await api.post("/api/links", {
        url: `https://www.example.com/landing/${i}?utm_source=newsletter`,
        alias: alias(i),
        tags,
        ...(title ? { title } : {}),
      });
      expect(r.status, r.text).toBe(201);
      // Distinct creation times: the newest-first order is then the creation order.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    for (const [i, n] of Object.entries(clicks)) {
      for (let k = 0; k < n; k++)
        expect((await fetch(`${server.url}/${alias(Number(i))}`, { redirect: "manual", headers: { "user-agent": UA } })).status).toBe(302);
    }
    await server.ctx.clicks.flush();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it("filters by two tags, sorts by clicks, shows sparklines and keeps the view in the address", async () => {
    const page = fixture.browser.page;
    await signInPage(page, email, PASSWORD);
    await page.getByTestId("link-row").first().waitFor();
    expect(await total(page)).toBe("55 links");
    expect(await page.getByTestId("link-row").count()).toBe(50);
    // Title or alias first; tags as chips.
    const newest = page.getByTestId("link-row").first();
    expect(await newest.getByTestId("link-title").textContent()).toBe(alias(55));
    expect(await page.getByTestId("link-row").nth(1).getByTestId("link-title").textContent()).toBe("Campaign page 54");

    await page.getByTestId("filter-tags").click();
    await page.getByTestId("filter-tags-panel").getByText("Spring").click();
    await page.waitForURL((u) => u.searchParams.getAll("tag").join() === "Spring");
    await expect.poll(() => total(page)).toBe("10 links");
    await page.getByTestId("filter-tags-panel").getByText("Newsletter").click();
    await page.waitForURL((u) => u.searchParams.getAll("tag").join() === "Spring,Newsletter");
    await expect.poll(() => total(page)).toBe("6 links");
    await page.keyboard.press("Escape");
    expect(await page.getByTestId("filter-tags").textContent()).toContain("Tags: Spring, Newsletter");
    const row = page.getByTestId("link-row").filter({ hasText: alias(2) });
    expect(await row.getByTestId("tag-chip").allTextContents()).toEqual(["Newsletter", "Spring"]);
    expect(await row.getByTestId("tag-chip").first().getAttribute("data-color")).toBe("purple");

    await page.getByTestId("links-sort").selectOption({ label: "Most clicks" });
    await page.waitForURL((u) => u.searchParams.get("sort") === "clicks" && u.searchParams.get("order") === "desc");
    await expect.poll(() => aliases(page)).toEqual([2, 4, 6, 1, 5, 3].map(alias));
    // Today's clicks are the sparkline's last day.
    await expect.poll(() => row.getByTestId("link-sparkline").getAttribute("data-values")).toBe("0,0,0,0,0,0,5");
    expect(await row.getByTestId("link-clicks").textContent()).toBe("5 clicks");
    await page.getByTestId("links-sort").selectOption({ label: "Fewest clicks" });
    await expect.poll(() => aliases(page)).toEqual([3, 5, 1, 6, 4, 2].map(alias));
    await screenshotModes(page, "organise-01-two-tags-by-clicks");

    // Reload: the same view from the address.
    await page.reload();
    await expect.poll(() => aliases(page)).toEqual([3, 5, 1, 6, 4, 2].map(alias));
    expect(await page.getByTestId("links-sort").inputValue()).toBe("clicks:asc");
    expect(await page.getByTestId("filter-tags").textContent()).toContain("Tags: Spring, Newsletter");
    // Back: the sort before.
    await page.goBack();
    await expect.poll(() => aliases(page)).toEqual([2, 4, 6, 1, 5, 3].map(alias));
    expect(await page.getByTestId("links-sort").inputValue()).toBe("clicks:desc");

    // Nothing matches: the filtered empty state clears the filters.
    await page.getByTestId("links-search").fill("no-such-thing-anywhere");
    await page.getByTestId("links-empty").waitFor();
    expect(await page.getByTestId("links-empty").textContent()).toContain("No links match these filters");
    await page.getByTestId("links-empty-clear").click();
    await expect.poll(() => total(page)).toBe("55 links");
    expect(new URL(page.url()).searchParams.getAll("tag")).toEqual([]);
    expect(await page.getByTestId("links-search").inputValue()).toBe("");
  });

  it("archives the page's 50 links with the multi-select: gone from the default view, listed under state=archived", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await page.getByTestId("link-row").first().waitFor();
    await page.getByTestId("links-select-all").check();
    expect(await page.getByTestId("links-selected-count").textContent()).toBe("50 links selected");
    await screenshotModes(page, "organise-02-selected");
    await page.getByTestId("bulk-archive").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Archived 50 links.");
    await expect.poll(() => total(page)).toBe("5 links");
    expect(await aliases(page)).toEqual([5, 4, 3, 2, 1].map(alias));
    expect(await page.getByTestId("links-bulk").count()).toBe(0);
    expect(await page.getByTestId("link-archived").count()).toBe(0);

    await page.getByTestId("filter-state").click();
    await page.getByTestId("filter-state-panel").getByText("Archived", { exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get("state") === "archived");
    await expect.poll(() => total(page)).toBe("50 links");
    expect(await page.getByTestId("link-archived").count()).toBe(50);
    expect(await page.getByTestId("filter-state").textContent()).toContain("State: Archived");
    const stored = (await api.get("/api/links?state=archived&limit=100")).body.links as Array<{ alias: string; archived: boolean }>;
    expect(stored.map((l) => l.alias).sort()).toEqual(Array.from({ length: 50 }, (_, i) => alias(i + 6)).sort());
  });

  it("tags 50 links at once, restores and deletes some after a confirmation naming how many", async () => {
    const page = fixture.browser.page;
    await page.goto("/app?state=archived");
    await page.getByTestId("link-row").first().waitFor();
    await page.getByTestId("links-select-all").check();
    await page.getByTestId("bulk-add-tag").click();
    await page.getByTestId("bulk-tag-name").fill("Q3 launch");
    await page.getByTestId("bulk-tag-submit").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Tagged 50 links “Q3 launch”.");
    await expect.poll(() => page.getByTestId("tag-chip").filter({ hasText: "Q3 launch" }).count()).toBe(50);
    const tagged = (await api.get(`/api/links?state=archived&tag=${encodeURIComponent("Q3 launch")}&limit=100`)).body;
    expect(tagged.total).toBe(50);

    // The new tag is a filter choice now; with the state filter the view is the 50 links.
    await page.getByTestId("filter-tags").click();
    await page.getByTestId("filter-tags-panel").getByText("Q3 launch").click();
    await page.waitForURL((u) => u.searchParams.get("tag") === "Q3 launch" && u.searchParams.get("state") === "archived");
    await page.keyboard.press("Escape");
    await page.reload();
    await expect.poll(() => total(page)).toBe("50 links");
    expect(await page.getByTestId("filter-tags").textContent()).toContain("Tags: Q3 launch");
    expect(await page.getByTestId("filter-state").textContent()).toContain("State: Archived");

    // Remove the tag from two, restore them, then delete two others.
    const rows = page.getByTestId("link-row");
    await rows.nth(0).getByTestId("link-select").check();
    await rows.nth(1).getByTestId("link-select").check();
    await page.getByTestId("bulk-remove-tag").click();
    await page.getByTestId("bulk-remove-tag-panel").getByText("Q3 launch").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Removed “Q3 launch” from 2 links.");
    await expect.poll(() => total(page)).toBe("48 links");
    await rows.nth(0).getByTestId("link-select").check();
    await rows.nth(1).getByTestId("link-select").check();
    await page.getByTestId("bulk-restore").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Restored 2 links.");
    await expect.poll(() => total(page)).toBe("46 links");
    await rows.nth(0).getByTestId("link-select").check();
    await rows.nth(1).getByTestId("link-select").check();
    const doomed = (await aliases(page)).slice(0, 2);
    await page.getByTestId("bulk-delete").click();
    const dialog = page.locator("dialog[open]");
    expect(await dialog.locator("h2").textContent()).toBe("Delete 2 links?");
    await screenshot(page, "organise-03-delete-confirm", false);
    await dialog.getByTestId("confirm-ok").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Deleted 2 links.");
    await expect.poll(() => total(page)).toBe("44 links");
    for (const a of doomed) expect((await fetch(`${fixture.server.url}/${a}`, { redirect: "manual" })).status).toBe(404);
    expect((await api.get("/api/links?limit=100")).body.total).toBe(7);
  });

  it("on a phone: filters folded behind a button, rows stacked, no sideways scrolling", async () => {
    const page = fixture.browser.page;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/app?tag=Spring");
    await page.getByTestId("link-row").first().waitFor();
    expect(await page.getByTestId("filter-chips").isVisible()).toBe(false);
    expect(await page.getByTestId("filters-toggle").textContent()).toBe("Filters (1)");
    await page.getByTestId("filters-toggle").click();
    await page.getByTestId("filter-state").click();
    await page.getByTestId("filter-state-panel").waitFor();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      // Buttons fade between the themes' colours: the picture after the fade.
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, scheme).toBeLessThanOrEqual(390);
      await screenshot(page, `organise-04-phone-filters-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByTestId("link-row").first().getByTestId("link-select").check();
    await page.getByTestId("bulk-add-tag").click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "organise-05-phone-bulk", false);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("a member manages the owner's links with the owner's tags, without Delete", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await signInPage(page, memberEmail, PASSWORD);
    await page.goto(`/app/shared/${ownerId}?tag=Spring`);
    await page.getByTestId("link-row").first().waitFor();
    await expect.poll(() => total(page)).toBe("5 links");
    await page.getByTestId("links-select-all").check();
    await page.getByTestId("bulk-archive").waitFor();
    expect(await page.getByTestId("bulk-delete").count()).toBe(0);
    await page.getByTestId("bulk-add-tag").click();
    await page.getByTestId("bulk-add-tag-panel").getByText("Newsletter").click();
    await expect.poll(() => page.getByTestId("links-notice").textContent()).toBe("Tagged 5 links “Newsletter”.");
  });

  it("no links at all: “No links yet”", async () => {
    const page = fixture.browser.page;
    const fresh = `organise-fresh-${stamp}@example.com`;
    await fixture.server.ctx.accounts.create({ email: fresh, password: PASSWORD, plan: "free", verified: true });
    await fixture.browser.context.clearCookies();
    await signInPage(page, fresh, PASSWORD);
    await page.getByTestId("links-empty").waitFor();
    expect(await page.getByTestId("links-empty").textContent()).toContain("No links yet");
    expect(await page.getByTestId("links-empty-clear").count()).toBe(0);
  });
});
