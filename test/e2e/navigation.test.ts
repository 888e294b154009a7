// Browser test of the dashboard's navigation for four roles (a free user, a Business owner, a member of two teams
// whose owners have long names, an operator) at 390 to 1920 px: every entry is there, no entry wraps onto a second
// line (names may take two, whole), nothing is cut (scrollWidth <= clientWidth; a select's chosen text fits its box), nothing runs out of the
// window or the sidebar; a top bar keeps its items on one row. Measured in the page, not eyeballed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, networkQuiet, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";

const available = browserAvailable();
const PASSWORD = "nav-password-1";
const WIDE = [1024, 1280, 1440, 1920];

interface Measured {
  /** Entries found, by data-testid. */
  testIds: string[];
  problems: string[];
}

/** Measures every visible item of the navigation (the header and the sidebar or the opened phone menu). */
function measure(page: Page): Promise<Measured> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (el: Element) => el.getAttribute("data-testid") ?? `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      // Wider than 1 px: a visually hidden name (kept for screen readers) is not shown, so not cut.
      return r.width > 1 && r.height > 1 && getComputedStyle(el).visibility !== "hidden";
    };
    const regions = [...document.querySelectorAll("header.site-header, [data-testid=sidebar]")].filter(visible);
    const items = regions.flatMap((region) =>
      [...region.querySelectorAll("a, button, select, [data-testid=user-email], [data-testid=user-name]")].filter(visible).map((el) => ({ el, region })),
    );
    const canvas = document.createElement("canvas").getContext("2d")!;
    for (const { el, region } of items) {
      const s = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 0.5 || r.left < -0.5)
        problems.push(`${name(el)} runs out of the window (${Math.round(r.left)}..${Math.round(r.right)} of ${window.innerWidth})`);
      const box = region.getBoundingClientRect();
      if (r.right > box.right + 0.5)
        problems.push(`${name(el)} runs out of its ${region.tagName.toLowerCase()} (${Math.round(r.right)} > ${Math.round(box.right)})`);
      if (el.scrollWidth > el.clientWidth + 0.5 && s.display !== "inline")
        problems.push(`${name(el)} is cut: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
      if (el instanceof HTMLSelectElement) {
        canvas.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const text = el.selectedOptions[0]?.text ?? "";
        const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        const need = canvas.measureText(text).width;
        if (need > room + 0.5) problems.push(`${name(el)} cuts "${text}": needs ${Math.round(need)} px, has ${Math.round(room)}`);
      }
      const lineHeight = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.5;
      const content = el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
      if (el.scrollHeight > el.clientHeight + 0.5 && s.display !== "inline")
        problems.push(`${name(el)} is cut: scrollHeight ${el.scrollHeight} > clientHeight ${el.clientHeight}`);
      // Names (a team owner's, the user's own) show whole over more lines if they must; entries and buttons keep one.
      const whole = ["team-view", "team-view-paused", "user-email", "user-name"].includes(el.getAttribute("data-testid") ?? "");
      if (!whole && (el.textContent ?? "").trim() && s.display !== "inline" && content > lineHeight * 1.5)
        problems.push(`${name(el)} wraps: ${Math.round(content)} px high at a ${Math.round(lineHeight)} px line`);
    }
    // A top bar is one row: every item's vertical centre within a few pixels of the others'.
    const bar = document.querySelector("header.site-header");
    if (bar && visible(bar)) {
      const centres = items
        .filter((i) => i.region === bar)
        .map(({ el }) => {
          const r = el.getBoundingClientRect();
          return { el, y: r.top + r.height / 2 };
        });
      // ... and no two overlap.
      const boxes = items
        .filter((i) => i.region === bar)
        .map(({ el }) => ({ el, r: el.getBoundingClientRect() }))
        .sort((a, b) => a.r.left - b.r.left);
      for (let i = 1; i < boxes.length; i++) {
        const [a, b] = [boxes[i - 1]!, boxes[i]!];
        if (!a.el.contains(b.el) && !b.el.contains(a.el) && b.r.left < a.r.right - 0.5)
          problems.push(`${name(b.el)} overlaps ${name(a.el)} by ${Math.round(a.r.right - b.r.left)} px`);
      }
      const ys = centres.map((c) => c.y);
      if (ys.length > 0 && Math.max(...ys) - Math.min(...ys) > 8) {
        const low = centres.reduce((a, b) => (b.y > a.y ? b : a));
        problems.push(`the top bar takes more than one row: ${name(low.el)} sits ${Math.round(Math.max(...ys) - Math.min(...ys))} px lower`);
      }
    }
    return { testIds: items.map(({ el }) => el.getAttribute("data-testid") ?? "").filter(Boolean), problems };
  });
}

describe.skipIf(!available)("navigation that scales: four roles, 390 to 1920 px", () => {
  let fixture: BrowserFixture;
  const stamp = Date.now().toString(36);
  const email = (who: string) => `${who}-${stamp}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture();
    const { ctx } = fixture.server;
    const create = (who: string, name: string, extra: { plan?: string; admin?: boolean } = {}) =>
      ctx.accounts.create({ email: email(who), password: PASSWORD, verified: true, name, ...extra });
    await create("free", "Fay Free");
    await create("business", "Bea Business-Owner", { plan: "business" });
    await create("operator", "Olive Operator", { admin: true });
    const member = await create("member", "Nina Newbie");
    const first = await create("team1", "Bartholomew Featherstonehaugh-Cholmondeley", { plan: "business" });
    const second = await create("team2", "Wilhelmina Oyelaran-Lindqvist", { plan: "enterprise" });
    const now = Date.now();
    for (const owner of [first, second]) {
      await ctx.storage.db.insertInto("team_members").values({ owner_id: owner.id, member_id: member.id, joined_at: now }).execute();
    }
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const roles = [
    { who: "free", expect: ["nav-dashboard", "nav-analytics", "nav-team", "nav-profile", "sign-out"] },
    { who: "business", expect: ["nav-dashboard", "nav-webhooks", "nav-domains", "nav-sso", "sign-out"] },
    { who: "member", expect: ["team-view-own", "nav-new-link", "nav-profile", "sign-out"] },
    { who: "operator", expect: ["nav-dashboard", "nav-admin", "sign-out"] },
  ] as const;

  async function signIn(page: Page, who: string) {
    await fixture.browser.context.clearCookies();
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInPage(page, email(who), PASSWORD);
    await networkQuiet(page);
  }

  for (const role of roles) {
    it(`${role.who}: at ${WIDE.join(", ")} px every entry shows whole on one line`, async () => {
      const page = fixture.browser.page;
      await signIn(page, role.who);
      const problems: string[] = [];
      for (const width of WIDE) {
        await page.setViewportSize({ width, height: 900 });
        if (role.who === "member") await page.getByTestId("team-view-own").waitFor();
        const m = await measure(page);
        for (const id of role.expect) if (!m.testIds.includes(id)) problems.push(`${width} px: ${id} is not shown`);
        problems.push(...m.problems.map((p) => `${width} px: ${p}`));
        if (width === 1280) await screenshot(page, `nav-${role.who}-${width}`, false);
      }
      if (role.who === "member") {
        // Both teams are offered, each by its owner's whole name.
        const views = await page.getByTestId("team-switcher").getByRole("link").allTextContents();
        expect(views).toEqual(["Your links", "Bartholomew Featherstonehaugh-Cholmondeley's links", "Wilhelmina Oyelaran-Lindqvist's links"]);
      }
      expect(problems).toEqual([]);
    });

    it(`${role.who}: on a phone the menu holds the same entries, whole`, async () => {
      const page = fixture.browser.page;
      await signIn(page, role.who);
      await page.setViewportSize({ width: 390, height: 844 });
      const closed = await measure(page);
      expect(closed.problems).toEqual([]);
      expect(closed.testIds).not.toContain("sign-out");
      await page.getByTestId("menu-toggle").click();
      await page.getByTestId("sidebar").waitFor();
      const open = await measure(page);
      expect(open.problems).toEqual([]);
      for (const id of role.expect) expect(open.testIds, id).toContain(id);
      await screenshot(page, `nav-${role.who}-390-menu`, false);
      // A choice closes the menu.
      await page.getByTestId("nav-profile").click();
      await page.waitForURL((u) => u.pathname === "/app/profile");
      await page.getByTestId("sidebar").waitFor({ state: "hidden" });
    });
  }

  it("signed out: the top bar's logo, Sign in, Sign up and theme switch on one row, none overlapping, 390 to 1920 px", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await page.goto("/");
    await page.getByTestId("nav-signup").waitFor();
    const problems: string[] = [];
    for (const width of [390, 768, ...WIDE]) {
      await page.setViewportSize({ width, height: 900 });
      const m = await measure(page);
      for (const id of ["logo", "nav-login", "nav-signup", "theme-dark"]) if (!m.testIds.includes(id)) problems.push(`${width} px: ${id} is not shown`);
      problems.push(...m.problems.map((p) => `${width} px: ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it("the sidebar collapses to icons, stays collapsed after a reload, and opens again", async () => {
    const page = fixture.browser.page;
    await signIn(page, "operator");
    const width = () => page.getByTestId("sidebar").evaluate((el) => Math.round(el.getBoundingClientRect().width));
    const wide = await width();
    await page.getByTestId("sidebar-collapse").click();
    await expect.poll(width).toBeLessThan(80);
    expect(await page.getByTestId("sidebar-collapse").getAttribute("aria-expanded")).toBe("false");
    // The entries keep their names for screen readers and on hover.
    expect(await page.getByTestId("nav-admin").getAttribute("title")).toBe("Operator");
    await expect.poll(() => page.getByRole("link", { name: "Operator" }).count()).toBe(1);
    expect((await measure(page)).problems).toEqual([]);
    await screenshot(page, "nav-operator-1280-collapsed", false);
    await page.reload();
    await expect.poll(width).toBeLessThan(80);
    await page.getByTestId("sidebar-collapse").click();
    await expect.poll(width).toBe(wide);
  });

  it("the member's switcher moves between their own links and each team's", async () => {
    const page = fixture.browser.page;
    await signIn(page, "member");
    const team = page.getByTestId("team-switcher");
    await team.getByRole("link", { name: "Wilhelmina Oyelaran-Lindqvist's links" }).click();
    await page.waitForURL(/\/app\/shared\//);
    // The address changes before the switcher re-renders its current entry: wait for that render.
    await expect.poll(() => team.locator("[aria-current=page]").textContent(), { timeout: 5_000 }).toBe("Wilhelmina Oyelaran-Lindqvist's links");
    await page.getByTestId("team-view-own").click();
    await page.waitForURL((u) => u.pathname === "/app");
    await expect.poll(() => team.locator("[aria-current=page]").textContent(), { timeout: 5_000 }).toBe("Your links");
  });

  it("screenshots: signed out and signed in, the menu open, at 1280 and 390 px in light and dark (looked at, not asserted)", async () => {
    const page = fixture.browser.page;
    await fixture.browser.context.clearCookies();
    await page.goto("/");
    await networkQuiet(page);
    await screenshotModes(page, "nav-signed-out-home");
    await signIn(page, "member");
    await page.getByTestId("team-view-own").waitFor();
    await screenshotModes(page, "nav-member-links");
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByTestId("menu-toggle").click();
      await page.getByTestId("sidebar").waitFor();
      await screenshot(page, `nav-member-390-${scheme}-menu`, false);
      await page.keyboard.press("Escape");
      await page.getByTestId("sidebar").waitFor({ state: "hidden" });
    }
    await page.emulateMedia({ colorScheme: "light" });
  });
});
