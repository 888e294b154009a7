// Issue 55's inputs and findings 1-5 in the browser, measured: the two-factor code fields typed, spaced and in the
// stylesheet's look (a numeric keyboard on phones); names and short links that wrap only between words; the messages
// a newcomer met; example.com/page in bulk; one source of plan marks; single sign-on offered only where it exists,
// with one email box that keeps what was typed. Screenshots at 1280 and 390 px, light and dark, of the pages changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { unstyledFields } from "./unstyled.js";
import { ApiClient } from "../helpers/client.js";
import { secretBytes, totpCode } from "../../src/security/totp.js";

const available = browserAvailable();
const PASSWORD = "newcomer-password-1";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

/**
 * Where the element's text wraps, as "before|after" pairs, after narrowing it to `width` px: each character's line
 * found from its own box (a <wbr> leaves no character, so the text reads as one).
 */
async function breaksAt(el: Locator, width: number): Promise<string[]> {
  return el.evaluate((node, w) => {
    const box = node as HTMLElement;
    box.style.display = "inline-block";
    box.style.flex = "none";
    box.style.width = `${w}px`;
    const chars: { c: string; top: number }[] = [];
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      for (let i = 0; i < n.data.length; i++) {
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        const rect = r.getClientRects()[0];
        // A space at a line's end has no box of its own: it stays on the line before.
        const top = rect && rect.width > 0 ? Math.round(rect.top) : (chars[chars.length - 1]?.top ?? 0);
        chars.push({ c: n.data[i] as string, top });
      }
    }
    const text = (from: number, to: number) =>
      chars
        .slice(from, to)
        .map((x) => x.c)
        .join("");
    const out: string[] = [];
    for (let i = 1; i < chars.length; i++) if ((chars[i]?.top ?? 0) > (chars[i - 1]?.top ?? 0) + 2) out.push(`${text(0, i)}|${text(i, chars.length)}`);
    return out;
  }, width);
}

/** A break between words: after a dot, slash, ?, &, =, hyphen or space, or before a space. */
const wordBreak = (pair: string) => /[./?&=\-\s]\|/.test(pair) || /\|\s/.test(pair);

describe.skipIf(!available)("issue 55 inputs and findings 1-5 in the browser", () => {
  let f: BrowserFixture;
  const stamp = Date.now().toString(36);
  const free = `free-${stamp}@example.com`;
  const biz = `biz-${stamp}@example.com`;
  const twoStep = `totp-${stamp}@example.com`;
  let secret = "";

  beforeAll(async () => {
    f = await startBrowserFixture();
    const a = f.server.ctx.accounts;
    await a.create({ email: free, password: PASSWORD, plan: "free", verified: true });
    await a.create({ email: biz, password: PASSWORD, plan: "business", verified: true });
    await a.create({ email: twoStep, password: PASSWORD, verified: true });
    const c = new ApiClient(f.server.url);
    expect((await c.login(twoStep, PASSWORD)).status).toBe(200);
    secret = (await c.post("/api/auth/2fa/totp/setup")).body.secret;
    expect((await c.post("/api/auth/2fa/totp/enable", { code: totpCode(secretBytes(secret), Date.now()) })).status).toBe(200);
  });
  afterAll(async () => {
    await f?.close();
  });

  const as = async (page: Page, email: string) => {
    await f.browser.context.clearCookies();
    await signInPage(page, email, PASSWORD);
  };

  it("inputs and 2: the sign-in's code field is typed, spaced, numeric and styled; a wrong code is said in a sentence", async () => {
    const page = f.browser.page;
    await f.browser.context.clearCookies();
    await page.goto("/app/login");
    await page.getByTestId("login-email").fill(twoStep);
    await page.getByTestId("login-password").fill(PASSWORD);
    await page.getByTestId("login-submit").click();
    const code = page.getByTestId("second-step-code");
    await code.waitFor();
    const attrs = (l: Locator) => l.evaluate((el) => ["type", "autocomplete", "inputmode", "pattern"].map((a) => `${a}=${el.getAttribute(a)}`).join(" "));
    expect(await attrs(code)).toBe("type=text autocomplete=one-time-code inputmode=numeric pattern=[0-9]{6}");
    expect(await unstyledFields(page)).toEqual([]);
    const look = await code.evaluate((el) => ({ spacing: getComputedStyle(el).letterSpacing, width: el.getBoundingClientRect().width }));
    expect(look.spacing).not.toBe("normal");
    expect(look.width).toBeLessThanOrEqual(13 * 16 + 1);
    await screenshotModes(page, "issue55-2fa-step");
    const used = totpCode(secretBytes(secret), Date.now()) === "000000" ? "111111" : "000000";
    await code.fill(used);
    await page.getByTestId("second-step-submit").click();
    expect(await page.getByTestId("second-step-error").textContent()).toBe("This code is wrong or was already used");
    await page.getByTestId("second-step-toggle").click();
    expect(await attrs(code)).toBe("type=text autocomplete=one-time-code inputmode=text pattern=[A-Za-z0-9 -]{16,32}");
    expect(await unstyledFields(page)).toEqual([]);
    await screenshotModes(page, "issue55-2fa-step-recovery");
  });

  it("inputs: the Security page's set-up code field is typed, numeric and styled", async () => {
    const page = f.browser.page;
    await as(page, free);
    await page.goto("/app/security");
    await page.getByTestId("2fa-start").click();
    const code = page.getByTestId("totp-code");
    await code.waitFor();
    expect(await code.evaluate((el) => [el.getAttribute("type"), el.getAttribute("inputmode"), el.getAttribute("autocomplete")])).toEqual([
      "text",
      "numeric",
      "one-time-code",
    ]);
    expect(await unstyledFields(page)).toEqual([]);
    // The check finds a field in the browser's own look (what the code field was before): one reverted to it.
    await page.evaluate(() => {
      const probe = document.createElement("input");
      probe.id = "probe";
      probe.style.all = "revert";
      document.querySelector('[data-testid="totp-setup"]')?.append(probe);
    });
    expect(await unstyledFields(page)).toEqual(['<input id="probe" (no type)>']);
    await page.evaluate(() => document.getElementById("probe")?.remove());
    await screenshotModes(page, "issue55-security-2fa-setup");
  });

  it("1: breakdown names and the short link wrap only between words in a narrow column", async () => {
    const page = f.browser.page;
    const owner = await f.server.ctx.accounts.requireByEmail(biz);
    const link = await f.server.ctx.links.create(owner, { url: "https://example.com/spring", alias: `spring-lookbook-${stamp}` });
    for (const referer of ["https://mail.google.com/mail/u/0/", "https://news.ycombinator.example.com/item"])
      await fetch(`${f.server.url}/${link.alias}`, { redirect: "manual", headers: { "user-agent": IPHONE, referer } });
    await f.server.ctx.clicks.flush();
    await as(page, biz);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/app/links/${link.id}/stats`);
    const referrer = page.locator('[data-testid="breakdown-referrers"] .hbar-label', { hasText: "mail.google.com" });
    await referrer.waitFor();
    const problems: string[] = [];
    const check = async (name: string, el: Locator, width: number) => {
      const breaks = await breaksAt(el, width);
      if (breaks.length === 0) problems.push(`${name}: no line break at ${width} px (nothing measured)`);
      problems.push(...breaks.filter((b) => !wordBreak(b)).map((b) => `${name}: breaks inside a word: ${b}`));
    };
    await check("referrer", referrer, 70);
    await check("browser", page.locator('[data-testid="breakdown-browsers"] .hbar-label', { hasText: "Mobile Safari" }), 50);
    await check("short link", page.getByTestId("stats-short-url"), 150);
    expect(problems).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("2: `not a url` in the link form is not a full URL (not a matter of spaces)", async () => {
    const page = f.browser.page;
    await as(page, free);
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("not a url");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("link-url-error").textContent()).toBe("Enter a full URL such as https://example.com");
  });

  it("3: bulk takes example.com/page as the link form does", async () => {
    const page = f.browser.page;
    await as(page, biz);
    await page.goto("/app/links/bulk");
    await page.getByTestId("bulk-urls").fill(`example.com/bulk-page,bulk-${stamp}\nhttps://example.com/already`);
    await page.getByTestId("bulk-submit").click();
    await page.getByTestId("bulk-results").waitFor();
    const rows = page.getByTestId("bulk-result-row");
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(`${f.server.url}/bulk-${stamp}`);
    const made = await f.server.ctx.storage.db.selectFrom("links").select("url").where("alias", "=", `bulk-${stamp}`).executeTakeFirstOrThrow();
    expect(made.url).toBe("https://example.com/bulk-page");
    expect(await page.getByTestId("bulk-urls").inputValue()).toBe("");
  });

  it("4: a free account's Team entry and the links page's Bulk create carry the nav's Business mark; a Business account's none", async () => {
    const page = f.browser.page;
    await as(page, free);
    await page.getByTestId("links-bulk-create").waitFor();
    expect(await page.getByTestId("nav-team").first().getByTestId("plan-mark-team_invite").textContent()).toBe("Business");
    expect(await page.getByTestId("nav-bulk").first().getByTestId("plan-mark-bulk_create").textContent()).toBe("Business");
    expect(await page.getByTestId("links-bulk-create").getByTestId("links-bulk-create-plan-mark").textContent()).toBe("Business");
    await screenshotModes(page, "issue55-plan-marks-free");
    await as(page, biz);
    await page.getByTestId("links-bulk-create").waitFor();
    expect(await page.getByTestId("links-bulk-create-plan-mark").count()).toBe(0);
    expect(await page.getByTestId("plan-mark-team_invite").count()).toBe(0);
  });

  it("5: no single sign-on on an instance without it; with a connection, one email box, kept after an unknown domain", async () => {
    const page = f.browser.page;
    await f.browser.context.clearCookies();
    await page.goto("/app/login");
    await page.getByTestId("login-email").waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByTestId("sso-continue").count()).toBe(0);
    expect(await page.getByText("single sign-on").count()).toBe(0);
    expect(await page.locator('input[type="email"]').count()).toBe(1);
    await screenshotModes(page, "issue55-sign-in-no-sso");

    const owner = await f.server.ctx.accounts.create({ email: `ent-${stamp}@example.com`, password: PASSWORD, verified: true, plan: "enterprise" });
    const now = Date.now();
    const db = f.server.ctx.storage.db;
    const conn = { id: `conn-${stamp}`, owner_id: owner.id, issuer: "https://id.example.com", client_id: "c", client_secret_sealed: "x", require_sso: 0 };
    await db
      .insertInto("sso_connections")
      .values({ ...conn, created_at: now, updated_at: now })
      .execute();
    await db
      .insertInto("sso_domains")
      .values({
        domain: "acme.example",
        connection_id: conn.id,
        txt_token: "t",
        status: "verified",
        next_action: null,
        last_checked_at: now,
        verified_at: now,
        created_at: now,
        next_check_at: null,
        failing_since: null,
      })
      .execute();
    await page.goto("/app/login");
    await page.getByTestId("sso-continue").waitFor();
    expect(await page.locator('input[type="email"]').count()).toBe(1);
    await screenshotModes(page, "issue55-sign-in-sso");
    // Empty: the one email box is asked for.
    await page.getByTestId("sso-continue").click();
    expect(await page.getByTestId("login-email-error").textContent()).toBe("Enter your work email above, then continue with single sign-on");
    await page.getByTestId("login-email").fill("bob@unknown.example");
    await page.getByTestId("sso-continue").click();
    await page.waitForURL((u) => u.pathname === "/app/login" && u.searchParams.get("sso_error") === "not_found");
    expect(await page.getByTestId("sso-error").textContent()).toBe("No single sign-on is set up for this address: sign in with your password.");
    expect(await page.getByTestId("login-email").inputValue()).toBe("bob@unknown.example");
  });
});
