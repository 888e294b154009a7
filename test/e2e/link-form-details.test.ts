// Browser test of the link form's details: title, note, tags (an owner's and a new one), the UTM builder both
// ways with a saved template, the fallback URL, the social preview card; saved, reopened, duplicated; a member
// editing a team owner's link is offered the owner's tags. Screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import type { UserRow } from "../../src/storage/schema.js";

const available = browserAvailable();
const PNG_1X1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const IMAGE = "https://images.example.com/cards/spring.png";

const value = (page: Page, testId: string) => page.getByTestId(testId).inputValue();
const chips = (page: Page) =>
  page.getByTestId("tag-chip").evaluateAll((els) => els.map((e) => `${e.querySelector(".lf-tag-name")?.textContent}:${e.getAttribute("data-color")}`));

/** Full-page shots at 1280 and 390 px in light and dark, once the buttons' colour transitions have ended. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [scheme, width] of [
    ["light", 1280],
    ["light", 390],
    ["dark", 1280],
    ["dark", 390],
  ] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    await screenshot(page, `${name}-${width}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Wider than the window at this width? (the page must never scroll sideways) */
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

describe.skipIf(!available)("link form details in the browser", () => {
  let fixture: BrowserFixture;
  let pro: UserRow;
  const password = "details-password-1";
  const stamp = Date.now().toString(36);
  const alias = `spring-${stamp}`;
  let linkId = "";

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const ctx = fixture.server.ctx;
    pro = await ctx.accounts.create({ email: `pro-${stamp}@example.com`, password, plan: "pro", verified: true });
    await ctx.tags.create(pro, { name: "Launch", color: "green" });
    await ctx.tags.create(pro, { name: "Partners", color: "purple" });
    await ctx.utm.create(pro, { name: "Social post", utm_source: "x", utm_medium: "social", utm_campaign: "launch" });
    // The preview image's host is not on this machine: the browser gets a small PNG for it (after the page's CSP allowed it).
    await fixture.browser.context.route("https://images.example.com/**", (route) => route.fulfill({ status: 200, contentType: "image/png", body: PNG_1X1 }));
  });
  afterAll(async () => fixture?.close());

  it("builds a link with title, note, tags, UTM parameters, fallback and preview card", async () => {
    const page = fixture.browser.page;
    await signInPage(page, pro.email, password);
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://example.com/spring?ref=home#top");

    // UTM fields edit the URL, and the URL fills the fields.
    await page.getByTestId("utm-toggle").click();
    await page.getByTestId("link-utm_source").fill("newsletter");
    await page.getByTestId("link-utm_medium").fill("e mail");
    expect(await value(page, "link-url")).toBe("https://example.com/spring?ref=home&utm_source=newsletter&utm_medium=e%20mail#top");
    await page.getByTestId("link-url").fill("https://example.com/spring?ref=home&utm_source=newsletter&utm_medium=email&utm_campaign=spring+sale#top");
    expect(await value(page, "link-utm_medium")).toBe("email");
    expect(await value(page, "link-utm_campaign")).toBe("spring sale");
    await page.getByTestId("link-utm_medium").fill("");
    expect(await value(page, "link-url")).toBe("https://example.com/spring?ref=home&utm_source=newsletter&utm_campaign=spring+sale#top");
    // A template fills all five (the ones it leaves out are removed); another is saved from the fields.
    await page.getByTestId("utm-template").selectOption({ label: "Social post" });
    expect(await value(page, "link-url")).toBe("https://example.com/spring?ref=home&utm_source=x&utm_campaign=launch&utm_medium=social#top");
    await page.getByTestId("link-utm_content").fill("hero");
    await page.getByTestId("utm-save-template").click();
    await page.getByTestId("utm-template-name").fill("social post");
    await page.getByTestId("utm-template-submit").click();
    expect(await page.getByTestId("utm-template-name-error").textContent()).toBe("This name is taken by another of your templates");
    await page.getByTestId("utm-template-name").fill("Social hero");
    await page.getByTestId("utm-template-name").press("Enter");
    expect(await page.getByTestId("utm-notice").textContent()).toBe("Saved as template “Social hero”.");
    const templates = await fixture.server.ctx.utm.list(pro);
    expect(templates.map((t) => [t.name, t.utm_source, t.utm_medium, t.utm_campaign, t.utm_term, t.utm_content])).toEqual([
      ["Social hero", "x", "social", "launch", null, "hero"],
      ["Social post", "x", "social", "launch", null, null],
    ]);
    expect(page.url()).toMatch(/\/app\/links\/new$/); // Enter in the name saved the template, not the link

    await page.getByTestId("link-alias").fill(alias);
    await page.getByTestId("option-details-toggle").click();
    await page.getByTestId("link-title").fill("Spring launch page");
    await page.getByTestId("link-note").fill("For the April newsletter.\nAsk Dana before changing.");
    // Tags: one of the owner's picked from the suggestions, one new with Enter, one with a comma.
    await page.getByTestId("link-tags").fill("lau");
    expect(await page.getByTestId("tag-option").allTextContents()).toEqual(["Launch", "Create “lau”"]);
    await page.getByTestId("tag-option").first().click();
    await page.getByTestId("link-tags").fill("Spring 2026");
    await page.getByTestId("link-tags").press("Enter");
    await page.getByTestId("link-tags").pressSequentially("Extra,");
    expect(await chips(page)).toEqual(["Launch:green", "Spring 2026:new", "Extra:new"]);
    await page.getByTestId("tag-remove").last().click();
    expect(await chips(page)).toEqual(["Launch:green", "Spring 2026:new"]);
    expect(await page.getByTestId("tag-count").textContent()).toBe("2 of 10");

    await page.getByTestId("option-limits-toggle").click();
    await page.getByTestId("link-expires-at").fill("2099-01-01T10:00");
    await page.getByTestId("link-expired-url").fill("https://example.com/spring-is-over");
    await page.getByTestId("option-password-toggle").click();
    await page.getByTestId("link-password").fill("open sesame");
    await page.getByTestId("option-preview-toggle").click();
    expect(await page.getByTestId("preview-card-empty").isVisible()).toBe(true);
    await page.getByTestId("link-preview-title").fill("Spring is here");
    await page.getByTestId("link-preview-description").fill("Everything new this season, 20% off for a week.");
    await page.getByTestId("link-preview-image").fill(IMAGE);
    const host = new URL(fixture.server.url).host;
    expect(await page.getByTestId("preview-card-title").textContent()).toBe("Spring is here");
    expect(await page.getByTestId("preview-card-description").textContent()).toBe("Everything new this season, 20% off for a week.");
    expect(await page.getByTestId("preview-card-host").textContent()).toBe(host);
    const loaded = await page.getByTestId("preview-card-image").evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) await new Promise((r) => img.addEventListener("load", r, { once: true }));
      return img.naturalWidth;
    });
    expect(loaded).toBe(1);

    await shots(page, "e2e-link-form-details");
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      expect([width, await scrollsSideways(page)]).toEqual([width, false]);
    }
    // The tag suggestions open inside the window at 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("link-tags").evaluate((el) => el.scrollIntoView({ block: "center" }));
    await page.getByTestId("link-tags").fill("p");
    await page.getByTestId("tag-options").waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "e2e-link-form-details-tags-390", false);
    await page.getByTestId("link-tags").fill("");
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("short-url").textContent()).toBe(`${fixture.server.url}/${alias}`);
    linkId = ((await page.getByTestId("created-edit").getAttribute("href")) ?? "").split("/")[3] ?? "";
    expect(linkId).not.toBe("");
  });

  it("reopens the link for editing with everything it was given", async () => {
    const page = fixture.browser.page;
    await page.goto(`/app/links/${linkId}/edit`);
    await page.getByTestId("link-title").waitFor();
    expect(await value(page, "link-url")).toBe("https://example.com/spring?ref=home&utm_source=x&utm_campaign=launch&utm_medium=social&utm_content=hero#top");
    // The builder opens by itself for a URL with UTM parameters.
    expect(await page.getByTestId("link-utm_campaign").isVisible()).toBe(true);
    expect(await value(page, "link-utm_content")).toBe("hero");
    expect(await value(page, "link-title")).toBe("Spring launch page");
    expect(await value(page, "link-note")).toBe("For the April newsletter.\nAsk Dana before changing.");
    const created = (await fixture.server.ctx.tags.list(pro)).find((t) => t.name === "Spring 2026");
    expect(await chips(page)).toEqual([`Launch:green`, `Spring 2026:${created?.color}`]);
    expect(await value(page, "link-expired-url")).toBe("https://example.com/spring-is-over");
    expect(await value(page, "link-preview-title")).toBe("Spring is here");
    expect(await value(page, "link-preview-image")).toBe(IMAGE);
    expect(await page.getByTestId("preview-card-title").textContent()).toBe("Spring is here");
    expect(await page.getByTestId("preview-card-host").textContent()).toBe(new URL(fixture.server.url).host);
    await screenshot(page, "e2e-link-form-edit-1280", false);

    // A server refusal lands at its field: a tag name over 40 characters.
    await page.getByTestId("link-tags").fill("x".repeat(41));
    await page.getByTestId("link-tags").press("Enter");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("link-tags-error").textContent()).toBe("A tag name has at most 40 characters");
    await page.getByTestId("tag-remove").last().click();
    // Clearing the note and the preview's description is saved as such.
    await page.getByTestId("link-note").fill("");
    await page.getByTestId("link-preview-description").fill("");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    const link = await fixture.server.ctx.storage.db
      .selectFrom("links")
      .select(["note", "title", "preview_title", "preview_description", "expired_url"])
      .where("id", "=", linkId)
      .executeTakeFirstOrThrow();
    expect(link).toEqual({
      note: null,
      title: "Spring launch page",
      preview_title: "Spring is here",
      preview_description: null,
      expired_url: "https://example.com/spring-is-over",
    });
  });

  it("duplicates the link: every setting but the alias, and a word on the password", async () => {
    const page = fixture.browser.page;
    await page.getByTestId("link-duplicate").click();
    await page.waitForURL((u) => u.pathname === "/app/links/new" && u.searchParams.get("from") === linkId);
    await page.getByTestId("duplicate-note").waitFor();
    expect(await page.locator("h1").textContent()).toBe("Duplicate link");
    expect(await value(page, "link-alias")).toBe("");
    expect(await value(page, "link-url")).toBe("https://example.com/spring?ref=home&utm_source=x&utm_campaign=launch&utm_medium=social&utm_content=hero#top");
    expect(await value(page, "link-title")).toBe("Spring launch page");
    expect((await chips(page)).map((c) => c.split(":")[0])).toEqual(["Launch", "Spring 2026"]);
    expect(await value(page, "link-expires-at")).toBe("2099-01-01T10:00");
    expect(await value(page, "link-expired-url")).toBe("https://example.com/spring-is-over");
    expect(await value(page, "link-preview-title")).toBe("Spring is here");
    expect(await value(page, "link-password")).toBe("");
    expect(await page.locator(".field", { has: page.getByTestId("link-password") }).textContent()).toContain("cannot be read back");
    await screenshot(page, "e2e-link-form-duplicate-1280");
    await page.getByTestId("link-submit").click();
    const shortUrl = (await page.getByTestId("short-url").textContent()) ?? "";
    expect(shortUrl).not.toBe(`${fixture.server.url}/${alias}`);
    const copy = await fixture.server.ctx.storage.db
      .selectFrom("links")
      .select(["id", "url", "title", "expired_url", "preview_title", "preview_image", "password_hash"])
      .where("alias", "=", shortUrl.split("/").pop()!)
      .executeTakeFirstOrThrow();
    expect(copy).toMatchObject({
      url: "https://example.com/spring?ref=home&utm_source=x&utm_campaign=launch&utm_medium=social&utm_content=hero#top",
      title: "Spring launch page",
      expired_url: "https://example.com/spring-is-over",
      preview_title: "Spring is here",
      preview_image: IMAGE,
      password_hash: null,
    });
    const tags = await fixture.server.ctx.storage.db
      .selectFrom("link_tags")
      .innerJoin("tags", "tags.id", "link_tags.tag_id")
      .select("tags.name")
      .where("link_tags.link_id", "=", copy.id)
      .orderBy("tags.name")
      .execute();
    expect(tags.map((t) => t.name)).toEqual(["Launch", "Spring 2026"]);
  });

  it("a free account sees the fallback and the preview gated, and still tags, titles and builds UTM parameters", async () => {
    const page = fixture.browser.page;
    const free = await fixture.server.ctx.accounts.create({ email: `free-${stamp}@example.com`, password, plan: "free", verified: true });
    await page.context().clearCookies();
    await signInPage(page, free.email, password);
    await page.goto("/app/links/new");
    // The builder's one plan note names them; their fields are not offered.
    await page.getByTestId("form-plan-note").waitFor();
    expect(await page.getByTestId("form-plan-note").textContent()).toContain(
      "Expiry dates, start dates, click limits, fallback URLs and social previews: on the Pro plan and above.",
    );
    expect(await page.getByTestId("link-expired-url").count()).toBe(0);
    expect(await page.getByTestId("link-preview-image").count()).toBe(0);
    // The builder starts closed for a URL without UTM parameters, and its fields wait for a destination.
    expect(await page.getByTestId("link-utm_source").isVisible()).toBe(false);
    await page.getByTestId("utm-toggle").click();
    expect(await page.getByTestId("link-utm_source").isDisabled()).toBe(true);
    await page.getByTestId("link-url").fill("https://example.com/free");
    await page.getByTestId("link-utm_source").fill("free");
    await page.getByTestId("option-details-toggle").click();
    await page.getByTestId("link-title").fill("Free link");
    await page.getByTestId("link-tags").fill("Mine");
    await page.getByTestId("link-tags").press(",");
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "e2e-link-form-free-390-light");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId("link-submit").click();
    await page.getByTestId("short-url").waitFor();
    const row = await fixture.server.ctx.storage.db.selectFrom("links").select(["url", "title"]).where("owner_id", "=", free.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ url: "https://example.com/free?utm_source=free", title: "Free link" });
  });

  it("a member editing a team owner's link is offered the owner's tags and templates", async () => {
    const ctx = fixture.server.ctx;
    const owner = await ctx.accounts.create({ email: `owner-${stamp}@example.com`, password, plan: "business", verified: true });
    const member = await ctx.accounts.create({ email: `member-${stamp}@example.com`, password, plan: "free", verified: true });
    await ctx.storage.db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: Date.now() }).execute();
    await ctx.tags.create(owner, { name: "Owner campaign", color: "orange" });
    await ctx.utm.create(owner, { name: "Owner template", utm_source: "owner" });
    const link = await ctx.links.create(owner, { url: "https://example.com/owned", alias: `owned-${stamp}` });
    const page = fixture.browser.page;
    await page.context().clearCookies();
    await signInPage(page, member.email, password);
    await page.goto(`/app/links/${link.id}/edit`);
    await page.getByTestId("option-details-toggle").click();
    await page.getByTestId("link-tags").fill("owner");
    expect(await page.getByTestId("tag-option").allTextContents()).toEqual(["Owner campaign", "Create “owner”"]);
    await page.getByTestId("tag-option").first().click();
    await page.getByTestId("utm-toggle").click();
    await page.getByTestId("utm-template").selectOption({ label: "Owner template" });
    expect(await value(page, "link-url")).toBe("https://example.com/owned?utm_source=owner");
    // Members do not delete the owner's templates.
    expect(await page.getByTestId("utm-template-delete").count()).toBe(0);
    // The member's plan lacks previews; the owner's has them: the fields are open.
    await page.getByTestId("option-preview-toggle").click();
    expect(await page.getByTestId("link-preview-title").isDisabled()).toBe(false);
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    const tags = await ctx.storage.db
      .selectFrom("link_tags")
      .innerJoin("tags", "tags.id", "link_tags.tag_id")
      .select(["tags.name", "tags.color"])
      .where("link_tags.link_id", "=", link.id)
      .execute();
    expect(tags).toEqual([{ name: "Owner campaign", color: "orange" }]);
  });
});
