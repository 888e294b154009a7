// Browser test of every page, with data in it: every route of the dashboard's router (web/src/main.tsx, read by
// test/e2e/routes.ts: a route the walk does not reach fails the test), some in several states (links filtered and with
// a selection, the created link, webhooks with their delivery log, the operator's row menus), and the public pages the
// server writes (404, 410 expired, 403 limit reached, 410 disabled, password form, report form and its thank-you, the
// "+" page, bio pages in each theme, a custom one in colours too faint to read among them, and a shared statistics page).
// At 390 x 844 in light and dark, and at 1280 in both: no page is wider than the window, and the failure names the
// widest elements that stick out. At 1280, each page and state also passes axe-core (@axe-core/playwright: WCAG 2.1 A
// and AA rules, colour contrast among them: no serious or critical violation) in light and in dark, and so does the
// phone menu, opened, at 390. Dark mode follows prefers-color-scheme on a dashboard page and on a public page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { browserAvailable, networkQuiet, screenshot, settledAnimations, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { SEED_PASSWORD, seedEveryState, type Seeded } from "./seed.js";
import { dashboardRoutes, routesNotWalked } from "./routes.js";
import { unstyledFields } from "./unstyled.js";

const available = browserAvailable();

type Scheme = "light" | "dark";

/**
 * The elements that stick out of the window, widest first (none when the page fits): those a scroll box does not
 * hold (an absolutely positioned element escapes its box unless the box is positioned), else every one.
 */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; widest: string[] }> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth <= innerWidth) return { scrollWidth, innerWidth, widest: [] };
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : "";
      const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
      const testId = el.getAttribute("data-testid");
      return `${el.tagName.toLowerCase()}${id}${cls}${testId ? `[data-testid=${testId}]` : ""}`;
    };
    const held = (el: Element) => {
      if (["absolute", "fixed"].includes(getComputedStyle(el).position)) return false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== "visible" && p.getBoundingClientRect().right <= innerWidth + 0.5) return true;
      }
      return false;
    };
    const sticking = [...document.body.querySelectorAll("*")]
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.right > innerWidth + 0.5);
    const loose = sticking.filter(({ el }) => !held(el));
    const out = (loose.length > 0 ? loose : sticking)
      .sort((a, b) => b.r.width - a.r.width)
      .slice(0, 6)
      .map(({ el, r }) => `${describe(el)} (${Math.round(r.width)} px wide, right edge at ${Math.round(r.right)} px)`);
    return { scrollWidth, innerWidth, widest: out };
  });
}

/** The serious and critical axe violations on the page as it is now, one line each. */
async function axeProblems(page: Page, name: string): Promise<string[]> {
  await settledAnimations(page);
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes
        .slice(0, 4)
        .map((n) => `${name}: axe ${v.id} (${v.impact}) at ${n.target.join(" ")}: ${(n.failureSummary ?? "").split("\n").slice(1, 2).join("").trim()}`),
    );
}

describe.skipIf(!available)("every page fits a phone and passes axe, in light and dark", () => {
  let fixture: BrowserFixture;
  let seeded: Seeded;
  const stamp = Date.now().toString(36);

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    seeded = await seedEveryState(fixture.server, stamp);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  /** Whether the walk under way also runs axe on each page (the 1280 px walks). */
  let withAxe = false;

  /** Checks the page as it is now, and keeps a screenshot of it. */
  const check = async (page: Page, name: string, tag: string, problems: string[], fullPage = true) => {
    // The live page keeps its event stream open: never quiet.
    if (name !== "live") await networkQuiet(page);
    await page.waitForFunction(() => !document.querySelector('[data-testid="loading"]'));
    const o = await overflow(page);
    if (o.widest.length > 0)
      problems.push(`${name} (${new URL(page.url()).pathname}): ${o.scrollWidth} px wide at ${o.innerWidth} px:\n    ${o.widest.join("\n    ")}`);
    const bare = await unstyledFields(page);
    if (bare.length > 0) problems.push(`${name} (${new URL(page.url()).pathname}): fields in the browser's own style: ${bare.join(", ")}`);
    if (withAxe) problems.push(...(await axeProblems(page, name)));
    await screenshot(page, `look-${tag}-${name}`, fullPage);
  };

  const signIn = async (page: Page, email: string) => {
    await fixture.browser.context.clearCookies();
    await signInPage(page, email, SEED_PASSWORD);
  };

  /** The last page the walk reached: a timeout names it, and keeps a screenshot of what the page showed. */
  let reached = "";
  /** Every path the walks opened, for the check that they reach every route of the router. */
  const walked = new Set<string>();

  /** Visits every page at the current viewport and colour scheme; returns what sticks out where. */
  async function walk(page: Page, tag: string): Promise<string[]> {
    const problems: string[] = [];
    const visit = async (name: string, path: string, ready?: string) => {
      reached = name;
      walked.add(path);
      await page.goto(path);
      if (ready) await page.getByTestId(ready).first().waitFor();
      await check(page, name, tag, problems);
    };
    const a = seeded.alias;

    // Signed out: the public pages, sign-in, sign-up and an invitation link.
    await fixture.browser.context.clearCookies();
    await visit("home", "/");
    await visit("sign-in", "/app/login");
    await visit("sign-up", "/app/signup");
    await visit("accept-invitation", "/app/invitations/accept?token=not-a-real-token");
    await visit("verify-email", "/app/verify-email?token=not-a-real-token", "verify-email");
    await visit("reset-password", "/app/reset-password", "reset-form");
    await visit("reset-password-confirm", "/app/reset-password/confirm?token=not-a-real-token", "reset-confirm-form");
    await visit("dashboard-404", "/app/no-such-page", "not-found");
    await visit("public-404", `/no-such-link-${stamp}`);
    await visit("public-410-expired", `/${a.expired}`);
    await visit("public-403-limit", `/${a.used}`);
    await visit("public-410-disabled", `/${a.disabled}`);
    await visit("public-410-blocked", `/${a.blocked}`);
    await visit("public-password", `/${a.password}`);
    await visit("public-plus", `/${a.plain}+`);
    await visit("public-plus-password", `/${a.password}+`);
    // The bio pages in each theme (auto follows the walk's scheme; the custom one's faint colours corrected) and a share.
    for (const [theme, slug] of Object.entries(seeded.bio)) await visit(`public-bio-${theme}`, `/${slug}`);
    await visit("public-share", seeded.sharePath);
    await visit("public-report", `/report?link=${a.plain}`);
    await page.locator("#reason").selectOption({ index: 1 });
    await page.getByRole("button", { name: "Send report" }).click();
    await page.waitForURL((u) => u.pathname === "/report");
    await check(page, "public-report-thanks", tag, problems);

    // The owner's dashboard.
    await signIn(page, seeded.owner.email);
    await visit("links", "/app", "link-row");
    await visit("links-filtered", "/app?state=active&has_password=false&sort=clicks&order=desc", "link-row");
    await page.getByTestId("link-select").first().check();
    await check(page, "links-selected", tag, problems);
    await visit("link-form", "/app/links/new", "link-form");
    await page.getByTestId("link-url").fill(`https://example.com/a/new/link/with/a/long/path/${tag}?q=1`);
    await page.getByTestId("link-submit").click();
    await page.getByTestId("create-another").waitFor();
    await check(page, "created-link", tag, problems);
    await visit("link", `/app/links/${seeded.plainId}`);
    await visit("link-edit", `/app/links/${seeded.plainId}/edit`, "link-form");
    await visit("stats", `/app/links/${seeded.plainId}/stats`);
    await visit("analytics", "/app/analytics", "top-links");
    await visit("live", "/app/live", "live-status");
    await visit("bulk", "/app/links/bulk");
    await visit("import", "/app/links/import", "import-history-empty");
    await visit("domains", "/app/domains");
    await visit("bio-pages", "/app/bio");
    await visit("bio-editor", "/app/bio/new", "bio-form");
    await visit("webhooks", "/app/webhooks", "webhook-row");
    await page.getByTestId("webhook-log-toggle").click();
    await page.getByTestId("delivery-row").first().waitFor();
    await page.getByTestId("delivery-payload-toggle").first().click();
    await page.getByTestId("delivery-payload").waitFor();
    await check(page, "webhooks-deliveries", tag, problems);
    await visit("team", "/app/team");
    await visit("profile", "/app/profile", "team-summary");
    await visit("security", "/app/security", "key-row");
    await visit("sso", "/app/sso", "sso-gated");
    await visit("conversions", "/app/conversions", "conv-install");
    await visit("customers", "/app/customers", "customer-row");
    await visit("customer", `/app/customers/${encodeURIComponent(seeded.customer)}`, "customer-sale");
    // Signing out ends on the home page.
    await visit("sign-out", "/app/logout");
    await page.waitForURL((u) => u.pathname === "/");

    // A team member's view of the owner's links.
    await signIn(page, seeded.member.email);
    await visit("shared-links", `/app/shared/${seeded.owner.id}`, "link-row");
    // The same member as admin of an Enterprise team: that team's members page (docs/roles.md).
    const lead = await fixture.server.ctx.accounts.create({
      email: `lead-${tag}@example.com`,
      password: "lead-password-1",
      plan: "enterprise",
      verified: true,
    });
    await fixture.server.ctx.storage.db
      .insertInto("team_members")
      .values({ owner_id: lead.id, member_id: seeded.member.id, joined_at: Date.now(), joined_by: "sso", role: "admin" })
      .execute();
    await visit("managed-team", `/app/team/${lead.id}`, "section-members");
    // That team's custom domains, webhooks and click streams, as its admin manages them.
    await visit("managed-domains", `/app/domains/${lead.id}`, "domains-empty");
    await visit("managed-webhooks", `/app/webhooks/${lead.id}`, "webhooks-empty");
    // Its audit log as the admin reads it, and the member's own (not Enterprise: the page says what it needs).
    await visit("managed-team-audit", `/app/team/${lead.id}/audit`, "team-audit-empty");
    await visit("team-audit-refused", "/app/team/audit", "team-audit-error");

    // The operator console, a row menu open.
    await signIn(page, seeded.operator.email);
    await visit("admin-overview", "/app/admin");
    await visit("admin-accounts", "/app/admin/accounts", "account-row");
    await page.getByTestId("account-menu").first().click();
    await check(page, "admin-accounts-menu", tag, problems, false);
    await visit("admin-links", "/app/admin/links", "admin-link-row");
    await page.getByTestId("admin-link-select").first().check();
    await page.getByTestId("admin-link-menu").first().click();
    await check(page, "admin-links-menu", tag, problems, false);
    await visit("admin-reports", "/app/admin/reports");
    await visit("admin-blocklist", "/app/admin/blocklist");
    await visit("admin-audit", "/app/admin/audit");
    await visit("admin-sso", "/app/admin/sso");
    await visit("admin-404", "/app/admin/no-such-page", "not-found");
    // The phone menu, opened (axe looks at it on the phone walks).
    if (page.viewportSize()!.width < 500) {
      await page.getByTestId("menu-toggle").click();
      problems.push(...(await axeProblems(page, "phone-menu")));
    }
    return problems;
  }

  const pass = (width: number, scheme: Scheme) => async () => {
    const page = fixture.browser.page;
    withAxe = width >= 1280;
    await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const tag = `${width}-${scheme}`;
    const problems = await walk(page, tag).catch(async (e: Error) => {
      await screenshot(page, `look-${tag}-FAILED-${reached}`).catch(() => undefined);
      throw new Error(`at ${tag}, on or after "${reached}" (${page.url()}): ${e.message}`);
    });
    expect(problems, `pages wider than ${width} px, with unstyled fields or axe violations (${scheme}):\n  ${problems.join("\n  ")}`).toEqual([]);
  };

  it("at 390 x 844, light: no page scrolls sideways", pass(390, "light"), 300_000);
  it("the walk reached every route of the dashboard's router", () => {
    expect(walked.size, "the walk above ran").toBeGreaterThan(0);
    expect(routesNotWalked(dashboardRoutes(), walked), "routes of web/src/main.tsx that no walk opens").toEqual([]);
  });
  it("at 390 x 844, dark: no page scrolls sideways", pass(390, "dark"), 300_000);
  it("at 1280, light: no page scrolls sideways, none has a serious or critical axe violation", pass(1280, "light"), 400_000);
  it("at 1280, dark: no page scrolls sideways, none has a serious or critical axe violation", pass(1280, "dark"), 400_000);

  it("dark mode follows prefers-color-scheme on a dashboard page and on a public page", async () => {
    const page = fixture.browser.page;
    await page.setViewportSize({ width: 390, height: 844 });
    const background = async (scheme: Scheme, path: string) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(path);
      await networkQuiet(page);
      return page.evaluate(() => ({ body: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color }));
    };
    await signIn(page, seeded.owner.email);
    for (const path of ["/app", `/${seeded.alias.expired}`]) {
      const light = await background("light", path);
      const dark = await background("dark", path);
      expect(dark.body, path).not.toBe(light.body);
      expect(dark.text, path).not.toBe(light.text);
      // Dark is dark: the background's channels are low.
      const channels = (dark.body.match(/\d+/g) ?? []).slice(0, 3).map(Number);
      expect(Math.max(...channels), `${path}: ${dark.body}`).toBeLessThan(60);
    }
  });
});
