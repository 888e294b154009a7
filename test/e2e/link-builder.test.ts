// Browser test of the compact link builder (issue 55): the short link and its QR code previewed as the alias is
// typed; a link created with each option, from the dialog over the list, on a Business account; a Free account
// offered only what its plan has, with one note and one upgrade line; the list keeping its place (scroll, search,
// loaded pages) while a link is created over it; the full page at /app/links/new; an edited link's options
// open and marked. Screenshots at 1280 and 390 px, light and dark, Free and Business, with an option open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import type { UserRow } from "../../src/storage/schema.js";
import { decodeQr } from "../helpers/qr-images.js";

const available = browserAvailable();
const password = "builder-password-1";

/** The text the QR code in the element encodes, read from its pixels. */
async function qrText(page: Page, testId: string): Promise<string | null> {
  return decodeQr(await page.getByTestId(testId).screenshot());
}

/** The builder's window: the dialog over the list, else the page. */
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

/** Shots of what the window shows at 1280 x 800 and 390 x 844, light and dark. */
async function shots(page: Page, name: string, fullPage = false): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      // A dialog from its top (a field's focus may have scrolled it).
      await page.evaluate(() => document.querySelector("dialog[open]")?.scrollTo(0, 0));
      await page.waitForTimeout(250);
      expect(await scrollsSideways(page), `${name} at ${width} px scrolls sideways`).toBe(false);
      await screenshot(page, `${name}-${width}-${scheme}`, fullPage);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Opens the builder over the list with its button. */
async function openBuilder(page: Page): Promise<void> {
  await page.getByTestId("new-link-button").click();
  await page.getByTestId("builder-dialog").getByTestId("link-url").waitFor();
}

interface OptionCase {
  key: string;
  /** Fills the option's fields inside the builder. */
  fill: (b: Locator) => Promise<void>;
  /** What the new link's row holds. */
  expect: Record<string, unknown>;
}

const OPTIONS: OptionCase[] = [
  {
    key: "utm",
    fill: async (b) => {
      await b.getByTestId("link-utm_source").fill("newsletter");
      await b.getByTestId("link-utm_campaign").fill("spring");
    },
    expect: { url: "https://example.com/opt-utm?utm_source=newsletter&utm_campaign=spring" },
  },
  {
    key: "limits",
    fill: async (b) => {
      await b.getByTestId("link-expires-at").fill("2099-01-01T10:00");
      await b.getByTestId("link-max-clicks").fill("250");
      await b.getByTestId("link-expired-url").fill("https://example.com/over");
    },
    expect: { max_clicks: 250, expired_url: "https://example.com/over", has_expiry: true },
  },
  {
    key: "delivery",
    fill: async (b) => {
      await b.getByTestId("link-starts-at").fill("2098-06-01T09:00");
      await b.getByTestId("link-redirect-status").selectOption("308");
      await b.getByTestId("link-crawlable").check();
    },
    expect: { redirect_status: 308, crawlable: 1, has_start: true },
  },
  {
    key: "password",
    fill: async (b) => b.getByTestId("link-password").fill("open sesame"),
    expect: { has_password: true },
  },
  {
    key: "devices",
    fill: async (b) => {
      await b.getByTestId("link-ios-url").fill("https://apps.apple.com/app/id1");
      await b.getByTestId("link-android-url").fill("https://play.google.com/store/apps/details?id=x");
      await b.getByTestId("link-app-ios").fill("id389801252");
      await b.getByTestId("link-app-android").fill("com.example.shop");
      await b.getByTestId("link-app-path").fill("/product/42");
      await b.getByTestId("link-open-outside").selectOption("on");
    },
    expect: {
      ios_url: "https://apps.apple.com/app/id1",
      android_url: "https://play.google.com/store/apps/details?id=x",
      app_ios_store_id: "389801252",
      app_android_package: "com.example.shop",
      app_path: "/product/42",
      open_outside: 1,
    },
  },
  {
    key: "rules",
    fill: async (b) => {
      await b.getByTestId("rule-add").click();
      await b.getByTestId("rule-0-country").fill("fr");
      await b.getByTestId("rule-0-url").fill("https://example.com/fr");
    },
    expect: { rules: [{ if: { country: ["FR"] }, url: "https://example.com/fr" }] },
  },
  {
    key: "split",
    fill: async (b) => {
      await b.getByTestId("split-add").click();
      await b.getByTestId("variant-1-url").fill("https://example.com/b");
      await b.getByTestId("variant-1-weight").fill("50");
    },
    expect: {
      split: [
        { url: "https://example.com/opt-split", weight: 50 },
        { url: "https://example.com/b", weight: 50 },
      ],
    },
  },
  {
    key: "preview",
    fill: async (b) => {
      await b.getByTestId("link-preview-title").fill("Spring is here");
      await b.getByTestId("link-preview-description").fill("Twenty percent off");
    },
    expect: { preview_title: "Spring is here", preview_description: "Twenty percent off" },
  },
  {
    key: "details",
    fill: async (b) => {
      await b.getByTestId("link-title").fill("Spring page");
      await b.getByTestId("link-note").fill("For the April newsletter");
      await b.getByTestId("link-tags").fill("Launch");
      await b.getByTestId("link-tags").press("Enter");
    },
    expect: { title: "Spring page", note: "For the April newsletter", tags: ["Launch"] },
  },
];

describe.skipIf(!available)("the compact link builder in the browser", () => {
  let fixture: BrowserFixture;
  let business: UserRow;
  let free: UserRow;
  const stamp = Date.now().toString(36);

  /** The stored link, in the shape the option cases name. */
  async function stored(alias: string): Promise<Record<string, unknown>> {
    const db = fixture.server.ctx.storage.db;
    const l = await db.selectFrom("links").selectAll().where("alias", "=", alias).executeTakeFirstOrThrow();
    const tags = await db
      .selectFrom("link_tags")
      .innerJoin("tags", "tags.id", "link_tags.tag_id")
      .select("tags.name")
      .where("link_tags.link_id", "=", l.id)
      .execute();
    return {
      url: l.url,
      max_clicks: l.max_clicks,
      expired_url: l.expired_url,
      has_expiry: l.expires_at !== null,
      has_start: l.starts_at !== null,
      redirect_status: l.redirect_status,
      crawlable: Number(l.crawlable),
      has_password: l.password_hash !== null,
      ios_url: l.ios_url,
      android_url: l.android_url,
      app_ios_store_id: l.app_ios_store_id,
      app_android_package: l.app_android_package,
      app_path: l.app_path,
      open_outside: l.open_outside === null ? null : Number(l.open_outside),
      rules: l.rules ? JSON.parse(l.rules) : null,
      split: l.split ? JSON.parse(l.split) : null,
      preview_title: l.preview_title,
      preview_description: l.preview_description,
      title: l.title,
      note: l.note,
      tags: tags.map((t) => t.name),
    };
  }

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const ctx = fixture.server.ctx;
    business = await ctx.accounts.create({ email: `biz-${stamp}@example.com`, password, plan: "business", verified: true });
    free = await ctx.accounts.create({ email: `free-${stamp}@example.com`, password, plan: "free", verified: true });
  });
  afterAll(async () => fixture?.close());

  it("previews the short link and its QR code as the alias is typed", async () => {
    const page = fixture.browser.page;
    await signInPage(page, business.email, password);
    await openBuilder(page);
    const host = new URL(fixture.server.url).host;
    expect(await page.getByTestId("short-preview").textContent()).toBe(`${host}/random`);
    expect(await page.getByTestId("short-preview").getAttribute("data-random")).toBe("true");
    expect(await page.getByTestId("builder-qr").count()).toBe(0);
    await page.getByTestId("builder-qr-empty").waitFor();

    await page.getByTestId("link-alias").pressSequentially("sp");
    expect(await page.getByTestId("short-preview").textContent()).toBe(`${host}/sp`);
    expect(await qrText(page, "builder-qr")).toBe(`${fixture.server.url}/sp`);
    await page.getByTestId("link-alias").pressSequentially(`ring-${stamp}`);
    expect(await page.getByTestId("short-preview").textContent()).toBe(`${host}/spring-${stamp}`);
    expect(await page.getByTestId("short-preview").getAttribute("data-random")).toBeNull();
    expect(await qrText(page, "builder-qr")).toBe(`${fixture.server.url}/spring-${stamp}`);
    // Screenshots with options open: the UTM fields and a rule.
    await page.getByTestId("link-url").fill("https://example.com/spring");
    await page.getByTestId("utm-toggle").click();
    await page.getByTestId("link-utm_source").fill("newsletter");
    await page.getByTestId("option-rules-toggle").click();
    await page.getByTestId("rule-add").click();
    await shots(page, "builder-business-dialog");
    await page.getByTestId("link-alias").fill("");
    expect(await page.getByTestId("short-preview").textContent()).toBe(`${host}/random`);
    await page.getByTestId("builder-close").click();
    await page.getByTestId("builder-dialog").waitFor({ state: "hidden" });
  });

  it.each(OPTIONS.map((o) => [o.key, o] as const))("creates a link with the %s option from the dialog (Business)", async (key, option) => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await page.getByTestId("new-link-button").waitFor();
    await openBuilder(page);
    const dialog = page.getByTestId("builder-dialog");
    const alias = `opt-${key}-${stamp}`;
    await dialog.getByTestId("link-url").fill(`https://example.com/opt-${key}`);
    await dialog.getByTestId("link-alias").fill(alias);
    // Every option starts closed and unmarked; its switch opens its fields in place.
    expect(await dialog.getByTestId(`option-${key}`).getAttribute("data-set")).toBeNull();
    const toggle = dialog.getByTestId(key === "utm" ? "utm-toggle" : `option-${key}-toggle`);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await option.fill(dialog);
    expect(await dialog.getByTestId(`option-${key}`).getAttribute("data-set")).toBe("true");
    if (key === "devices") await screenshotModes(page, "builder-app-destinations");
    await dialog.getByTestId("link-submit").click();

    // The builder closes; the new link is shown with copy and its QR code, and heads the list.
    await page.getByTestId("created-dialog").getByTestId("short-url").waitFor();
    expect(await dialog.isVisible()).toBe(false);
    expect(await page.getByTestId("created-dialog").getByTestId("short-url").textContent()).toBe(`${fixture.server.url}/${alias}`);
    await page.getByTestId("created-dialog").getByTestId("copy-button").waitFor();
    await page.getByTestId("created-dialog").getByTestId("qr-image").waitFor();
    await page.getByTestId("created-close").click();
    expect(await page.getByTestId("link-row").first().textContent()).toContain(alias);
    expect(await stored(alias)).toMatchObject(option.expect);
    if (key === "devices") {
      // The link page shows them.
      const id = (await fixture.server.ctx.storage.db.selectFrom("links").select("id").where("alias", "=", alias).executeTakeFirstOrThrow()).id;
      await page.goto(`/app/links/${id}`);
      await page.getByTestId("link-apps").waitFor();
      expect(await page.getByTestId("link-app-row").allTextContents()).toEqual([
        "App Storeapps.apple.com/app/id389801252",
        "Play Storecom.example.shop",
        "In-app path/product/42",
        "Open outside in-app browsersOn",
      ]);
      await screenshotModes(page, "link-page-app-destinations");
      await page.goto("/app");
    }
  });

  it("opens and marks the options an edited link has, and only those", async () => {
    const page = fixture.browser.page;
    const link = await fixture.server.ctx.links.create(business, { url: "https://example.com/edit-me", alias: `edit-${stamp}`, max_clicks: 7, note: "Kept" });
    await page.goto(`/app/links/${link.id}/edit`);
    await page.getByTestId("link-url").waitFor();
    const state = async (key: string) => [
      key,
      await page.getByTestId(key === "utm" ? "utm-toggle" : `option-${key}-toggle`).getAttribute("aria-expanded"),
      await page.getByTestId(`option-${key}`).getAttribute("data-set"),
    ];
    expect(await Promise.all(["utm", "limits", "delivery", "password", "devices", "rules", "split", "preview", "details"].map(state))).toEqual([
      ["utm", "false", null],
      ["limits", "true", "true"],
      ["delivery", "false", null],
      ["password", "false", null],
      ["devices", "false", null],
      ["rules", "false", null],
      ["split", "false", null],
      ["preview", "false", null],
      ["details", "true", "true"],
    ]);
    expect(await page.getByTestId("link-max-clicks").inputValue()).toBe("7");
    // A field refused in a closed option opens it: the check says so at the field.
    await page.getByTestId("link-max-clicks").fill("0");
    await page.getByTestId("option-limits-toggle").click();
    expect(await page.getByTestId("link-max-clicks").isVisible()).toBe(false);
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-max-clicks-error").waitFor();
    expect(await page.getByTestId("option-limits-toggle").getAttribute("aria-expanded")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("link-max-clicks");
  });

  it("shows a server refusal at its field in the dialog: a taken alias", async () => {
    const page = fixture.browser.page;
    await page.goto("/app");
    await openBuilder(page);
    const dialog = page.getByTestId("builder-dialog");
    await dialog.getByTestId("link-url").fill("https://example.com/again");
    await dialog.getByTestId("link-alias").fill(`opt-utm-${stamp}`);
    await dialog.getByTestId("link-submit").click();
    expect(await dialog.getByTestId("link-alias-error").textContent()).not.toBe("");
    expect(await dialog.isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });

  it("offers a Free account only its plan's options, with one note and one upgrade line", async () => {
    const page = fixture.browser.page;
    await page.context().clearCookies();
    await signInPage(page, free.email, password);
    await openBuilder(page);
    const dialog = page.getByTestId("builder-dialog");
    const shown = await dialog.locator('[data-testid^="option-"][data-testid$="-toggle"], [data-testid="utm-toggle"]').allTextContents();
    expect(shown).toEqual(["UTM parameters", "Start date and redirect code", "Password", "Device and app destinations", "Title, note, tags and folder"]);
    // The options the plan lacks are one list with one upgrade line, not locked fields down the builder.
    for (const key of ["limits", "rules", "split", "preview"]) expect([key, await dialog.getByTestId(`option-${key}`).count()]).toEqual([key, 0]);
    expect(await dialog.getByTestId("form-plan-note").count()).toBe(1);
    expect(await dialog.getByTestId("plan-gate-how").count()).toBe(1);
    expect(await dialog.locator(".plan-lock, [data-testid='plan-gate']").count()).toBe(0);
    const lines = await dialog.getByTestId("form-plan-note").locator("p").allTextContents();
    expect(lines.map((l) => l.replace(/\s+/g, " ").trim())).toEqual([
      "Pro Expiry dates, start dates, click limits, fallback URLs and social previews: on the Pro plan and above.",
      "Business Redirect rules and A/B splits and conversion tracking: on the Business plan and above.",
      "Your account is on Free. Plans on this service are set by its operator: ask the operator of this service to move your account.",
    ]);
    // None of their fields is there to fill; the start date is left out of its option, the redirect code stays.
    for (const id of ["link-expires-at", "link-max-clicks", "link-expired-url", "link-starts-at", "rule-add", "split-add", "link-preview-title"])
      expect([id, await page.getByTestId(id).count()]).toEqual([id, 0]);
    await dialog.getByTestId("option-delivery-toggle").click();
    await dialog.getByTestId("link-redirect-status").selectOption("301");
    await dialog.getByTestId("option-password-toggle").click();
    await dialog.getByTestId("link-password").fill("free secret");
    await dialog.getByTestId("link-url").fill("example.com/free-page");
    await dialog.getByTestId("link-alias").fill(`free-${stamp}`);
    await shots(page, "builder-free-dialog");
    const height = await dialog.evaluate((d) => d.scrollHeight);
    console.log(`builder (Free, dialog, delivery and password open) at 1280 px: ${height} px`);
    await dialog.getByTestId("link-submit").click();
    await page.getByTestId("created-dialog").getByTestId("short-url").waitFor();
    expect(await stored(`free-${stamp}`)).toMatchObject({ url: "https://example.com/free-page", redirect_status: 301, has_password: true, has_expiry: false });
    await page.getByTestId("created-close").click();
  });

  it("the full page at /app/links/new: the same builder, compact for a Free account", async () => {
    const page = fixture.browser.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/app/links/new");
    await page.getByTestId("link-form").waitFor();
    expect(await page.locator("h1").textContent()).toBe("New link");
    const heights = await page.evaluate(() => ({
      page: document.documentElement.scrollHeight,
      form: document.querySelector("[data-testid=link-form]")!.scrollHeight,
    }));
    console.log(`builder (Free, full page, options closed) at 1280 x 800: page ${heights.page} px, form ${heights.form} px`);
    // Before issue 55 the page was 2,755 px high for a Free account.
    expect(heights.page).toBeLessThan(1100);
    await shots(page, "builder-free-page", true);
    await page.getByTestId("link-url").fill("https://example.com/full-page");
    await page.getByTestId("link-alias").fill(`page-${stamp}`);
    await page.getByTestId("link-submit").click();
    await page.waitForURL((u) => /^\/app\/links\/[^/]+$/.test(u.pathname) && u.searchParams.get("created") === "1");
    expect(await page.getByTestId("short-url").textContent()).toBe(`${fixture.server.url}/page-${stamp}`);
  });

  it("creates over the list and keeps its place: search, loaded pages and scroll stay, the new link joins the list", async () => {
    const page = fixture.browser.page;
    const ctx = fixture.server.ctx;
    await page.context().clearCookies();
    // Two pages of the list (50 a page).
    for (let i = 0; i < 60; i++) await ctx.links.create(business, { url: `https://example.com/keep/${i}`, alias: `keep-${i}-${stamp}`, title: `Keep ${i}` });
    await signInPage(page, business.email, password);
    await page.goto("/app?q=keep");
    await page.getByTestId("link-row").first().waitFor();
    await page.getByTestId("load-more").click();
    await expect.poll(() => page.getByTestId("link-row").count()).toBe(60);
    await page.evaluate(() => window.scrollTo(0, 900));
    // The row at the top of the window, and where it is: the page keeps it there.
    const place = () =>
      page.evaluate(() => {
        const rows = [...document.querySelectorAll<HTMLElement>("[data-testid=link-row]")];
        const top = rows.find((r) => r.getBoundingClientRect().top >= 0)!;
        return { url: location.pathname + location.search, text: top.textContent, top: Math.round(top.getBoundingClientRect().top) };
      });
    const before = await place();
    expect(await page.evaluate(() => window.scrollY)).toBe(900);
    // `c` opens the builder (not while typing in a field).
    await page.keyboard.press("c");
    const dialog = page.getByTestId("builder-dialog");
    await dialog.getByTestId("link-url").waitFor();
    await dialog.getByTestId("link-url").fill("https://example.com/keep/new");
    await dialog.getByTestId("link-alias").fill(`keep-new-${stamp}`);
    await dialog.getByTestId("option-details-toggle").click();
    await dialog.getByTestId("link-title").fill("Keep new");
    await dialog.getByTestId("link-submit").click();
    await page.getByTestId("created-dialog").getByTestId("qr-image").waitFor();
    await screenshot(page, "builder-created-dialog-1280-light", false);
    await page.getByTestId("created-close").click();
    expect(
      await page.evaluate((b) => {
        const row = [...document.querySelectorAll<HTMLElement>("[data-testid=link-row]")].find((r) => r.textContent === b.text);
        return { url: location.pathname + location.search, text: row?.textContent, top: row ? Math.round(row.getBoundingClientRect().top) : null };
      }, before),
    ).toEqual(before);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThanOrEqual(900);
    expect(await page.getByTestId("link-row").count()).toBe(61);
    expect(await page.getByTestId("link-row").first().textContent()).toContain(`keep-new-${stamp}`);
    expect(await page.getByTestId("links-total").textContent()).toBe("61 links");
  });
});
