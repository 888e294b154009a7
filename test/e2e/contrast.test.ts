// axe-core (@axe-core/playwright) on every page, in light and in dark: every route of the dashboard's router
// (web/src/main.tsx, read by test/e2e/routes.ts: a route the walk does not reach fails the test), signed out, as the
// owner, as a team member and as the operator, with the sidebar open; and the public pages the server writes (404,
// expired, limit reached, disabled, blocked, password, report). WCAG 2.1 A and AA rules, colour contrast among them:
// no serious or critical violation. One browser, one walk per theme.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { browserAvailable, networkQuiet, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { SEED_PASSWORD, seedEveryState, type Seeded } from "./seed.js";
import { dashboardRoutes, routesNotWalked } from "./routes.js";

const available = browserAvailable();

/** Who is signed in, and the pages to look at: [name, path, a test id to wait for]. */
function pages(s: Seeded, stamp: string): Array<{ who: "nobody" | "owner" | "member" | "operator"; visits: Array<[string, string, string?]> }> {
  const a = s.alias;
  return [
    {
      who: "nobody",
      visits: [
        ["home", "/"],
        ["sign-in", "/app/login"],
        ["sign-up", "/app/signup"],
        ["reset-password", "/app/reset-password"],
        ["reset-password-confirm", "/app/reset-password/confirm?token=not-a-real-token", "reset-confirm-form"],
        ["verify-email", "/app/verify-email?token=not-a-real-token", "verify-email"],
        ["accept-invitation", "/app/invitations/accept?token=not-a-real-token"],
        ["dashboard-404", "/app/no-such-page", "not-found"],
        ["public-404", `/no-such-link-${stamp}`],
        ["public-expired", `/${a.expired}`],
        ["public-limit", `/${a.used}`],
        ["public-disabled", `/${a.disabled}`],
        ["public-blocked", `/${a.blocked}`],
        ["public-password", `/${a.password}`],
        ["public-report", `/report?link=${a.plain}`],
      ],
    },
    {
      who: "owner",
      visits: [
        ["links", "/app", "link-row"],
        ["link-form", "/app/links/new", "link-form"],
        ["link", `/app/links/${s.plainId}`],
        ["link-edit", `/app/links/${s.plainId}/edit`, "link-form"],
        ["stats", `/app/links/${s.plainId}/stats`],
        ["analytics", "/app/analytics", "top-links"],
        ["live", "/app/live", "live-status"],
        ["bulk", "/app/links/bulk"],
        ["import", "/app/links/import", "import-history-empty"],
        ["domains", "/app/domains"],
        ["webhooks", "/app/webhooks", "webhook-row"],
        ["team", "/app/team"],
        ["profile", "/app/profile", "team-summary"],
        ["security", "/app/security", "key-row"],
        ["sso", "/app/sso"],
        ["conversions", "/app/conversions", "conv-install"],
        ["customers", "/app/customers", "customer-row"],
        ["customer", `/app/customers/${encodeURIComponent(s.customer)}`, "customer-sale"],
        // Signing out ends on the home page.
        ["sign-out", "/app/logout"],
      ],
    },
    { who: "member", visits: [["shared-links", `/app/shared/${s.owner.id}`, "link-row"]] },
    {
      who: "operator",
      visits: [
        ["admin-overview", "/app/admin"],
        ["admin-accounts", "/app/admin/accounts", "account-row"],
        ["admin-links", "/app/admin/links", "admin-link-row"],
        ["admin-reports", "/app/admin/reports"],
        ["admin-blocklist", "/app/admin/blocklist"],
        ["admin-audit", "/app/admin/audit"],
        ["admin-sso", "/app/admin/sso"],
        ["admin-404", "/app/admin/no-such-page", "not-found"],
      ],
    },
  ];
}

describe.skipIf(!available)("every page passes axe in light and dark", () => {
  let fixture: BrowserFixture;
  let seeded: Seeded;
  const stamp = Date.now().toString(36);
  /** Every path the walks opened, for the check that they reach every route of the router. */
  const walked = new Set<string>();
  /** The page a walk is on, and since when, until it ends: a walk cut off by its timeout is named by afterAll. */
  let reached = { name: "", since: 0 };

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    seeded = await seedEveryState(fixture.server, stamp);
  });
  afterAll(async () => {
    if (reached.name)
      console.warn(`contrast.test.ts: the last walk ended on "${reached.name}", ${Math.round(performance.now() - reached.since)} ms after it opened`);
    await fixture?.close();
  });

  /** The serious and critical violations on the page as it is now, one line each. */
  async function audit(page: Page, name: string): Promise<string[]> {
    // The live page keeps its event stream open: never quiet.
    if (name !== "live") await networkQuiet(page);
    await page.waitForFunction(() => !document.querySelector('[data-testid="loading"]'));
    const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .flatMap((v) =>
        v.nodes
          .slice(0, 4)
          .map((n) => `${name}: ${v.id} (${v.impact}) at ${n.target.join(" ")}: ${(n.failureSummary ?? "").split("\n").slice(1, 2).join("").trim()}`),
      );
  }

  const walk = (scheme: "light" | "dark") => async () => {
    const page = fixture.browser.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const problems: string[] = [];
    const emails = { owner: seeded.owner.email, member: seeded.member.email, operator: seeded.operator.email };
    for (const { who, visits } of pages(seeded, stamp)) {
      await fixture.browser.context.clearCookies();
      if (who !== "nobody") await signInPage(page, emails[who], SEED_PASSWORD);
      for (const [name, path, ready] of visits) {
        walked.add(path);
        reached = { name, since: performance.now() };
        await page.goto(path);
        if (ready) await page.getByTestId(ready).first().waitFor();
        problems.push(...(await audit(page, name)));
      }
    }
    // The phone menu, opened.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("menu-toggle").click();
    problems.push(...(await audit(page, "phone-menu")));
    reached = { name: "", since: 0 };
    expect(problems, `${scheme}:\n  ${problems.join("\n  ")}`).toEqual([]);
  };

  it("light: no serious or critical violation on any page", walk("light"), 360_000);
  it("the walk reached every route of the dashboard's router", () => {
    expect(walked.size, "the walk above ran").toBeGreaterThan(0);
    expect(routesNotWalked(dashboardRoutes(), walked), "routes of web/src/main.tsx that no walk opens").toEqual([]);
  });
  it("dark: no serious or critical violation on any page", walk("dark"), 360_000);
});
