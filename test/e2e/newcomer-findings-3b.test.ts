// Issue 55's findings 6-10 in the browser, each measured or read as exact text: the branded API reference linked
// from API keys; visitors shown as "—" where they are not counted and the QR scans' visitors explained; the audit
// log naming operators and account holders apart; "Create this alias" on one line on a phone; an icon per empty
// state. Screenshots at 1280 and 390 px in light and dark of the pages changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshot, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { UA, visit } from "../helpers/visit.js";
import { hit } from "../helpers/host.js";
import { LOGO_SVG } from "../../src/http/api-docs.js";

const available = browserAvailable();
const PASSWORD = "newcomer-password-1";

describe.skipIf(!available)("issue 55 findings 6-10 in the browser", () => {
  let f: BrowserFixture;
  const stamp = Date.now().toString(36);
  const owner = `biz3-${stamp}@example.com`;
  const fresh = `fresh3-${stamp}@example.com`;
  const ops = `ops3-${stamp}@example.com`;
  let ownerId = "";

  beforeAll(async () => {
    f = await startBrowserFixture({ env: { NOT_FOUND_PER_MINUTE: "0", TRUST_PROXY: "true" } });
    const a = f.server.ctx.accounts;
    ownerId = (await a.create({ email: owner, password: PASSWORD, plan: "business", verified: true })).id;
    await a.create({ email: fresh, password: PASSWORD, plan: "business", verified: true });
    await a.create({ email: ops, password: PASSWORD, verified: true, admin: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  const as = async (page: Page, email: string) => {
    await f.browser.context.clearCookies();
    await signInPage(page, email, PASSWORD);
  };
  const text = (page: Page, testId: string) => page.getByTestId(testId).first().textContent();

  it("6: /docs is snip's API reference (title, logo, favicon, colours), linked from API keys", async () => {
    const page = f.browser.page;
    await as(page, owner);
    await page.goto("/app/security");
    const link = page.getByTestId("keys-api-docs");
    expect(await link.getAttribute("href")).toBe("/docs");
    expect(await link.textContent()).toBe("The API reference");
    await link.click();
    await page.waitForURL((u) => u.pathname.startsWith("/docs"));
    // Swagger UI renders the whole document in the browser: slow on a loaded machine.
    await page.locator(".swagger-ui .info .title").waitFor({ timeout: 60_000 });
    expect(await page.title()).toBe("snip API");
    expect(await page.locator(".swagger-ui .info .title").textContent()).toContain("snip API");
    // The top bar's logo is snip's, not Swagger's.
    const logo = page.locator(".topbar img");
    await logo.waitFor({ timeout: 30_000 });
    expect(await logo.getAttribute("src")).toBe(`data:image/svg+xml;base64,${Buffer.from(LOGO_SVG).toString("base64")}`);
    expect(await page.locator(".topbar-wrapper > a").evaluate((a) => [...a.children].map((c) => c.tagName))).toEqual(["IMG"]);
    expect(await page.locator('link[rel="icon"]').evaluateAll((els) => els.map((e) => e.getAttribute("href")))).toEqual(["/docs/static/theme/favicon.svg"]);
    expect(await page.locator(".swagger-ui .topbar").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(79, 70, 229)");
    const favicon = await fetch(`${f.server.url}/docs/static/theme/favicon.svg`);
    expect([favicon.status, favicon.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    // The window only: the whole reference is thousands of pixels long (Swagger UI has no dark theme of its own).
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 });
        await screenshot(page, `issue55-docs-${width}-${scheme}`, false);
      }
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 180_000);

  it("7: visitors the breakdown does not count show as “—”; the QR scans' visitors are explained", async () => {
    const page = f.browser.page;
    const link = await f.server.ctx.links.create((await f.server.ctx.accounts.byEmail(owner))!, {
      url: "https://example.com/news?utm_campaign=newsletter",
      alias: `news-${stamp}`,
    });
    const headers = (ip: string) => ({ "User-Agent": UA.windows, "X-Forwarded-For": ip });
    // Visitor 1 opens the short URL with its own campaign; visitor 2 opens it bare, then scans its QR code twice.
    expect(await visit(f.server.url, `/news-${stamp}?utm_campaign=spring`, headers("198.51.100.1"))).toBe(302);
    expect(await visit(f.server.url, `/news-${stamp}`, headers("198.51.100.2"))).toBe(302);
    expect(await visit(f.server.url, `/news-${stamp}?qr=1`, headers("198.51.100.2"))).toBe(302);
    expect(await visit(f.server.url, `/news-${stamp}?qr=1`, headers("198.51.100.2"))).toBe(302);
    await f.server.ctx.clicks.flush();
    await page.goto(`/app/links/${link.id}/stats`);
    await page.getByTestId("sources-panel").waitFor();
    const qr = page.getByTestId("source-qr");
    expect([await qr.getAttribute("data-clicks"), await qr.getAttribute("data-visitors")]).toEqual(["2", "0"]);
    expect(await text(page, "sources-visitors-note")).toBe(
      "Each visitor counts once a day, under the source of their first click: someone who opened the short link and then scanned its code adds a scan to QR code scans, and stays a visitor of the short link.",
    );
    const campaigns = page.getByTestId("breakdown-utm-campaigns");
    const own = campaigns.locator('[data-label="spring"]');
    expect([await own.getAttribute("data-clicks"), await own.getAttribute("data-visitors")]).toEqual(["1", "1"]);
    const dest = campaigns.locator('[data-label="newsletter (destination)"]');
    expect(await dest.getAttribute("data-clicks")).toBe("3");
    expect(await dest.getAttribute("data-visitors")).toBeNull();
    expect(await dest.getByTestId("visitors-uncounted").textContent()).toBe("—");
    expect(await dest.getByTestId("visitors-uncounted").getAttribute("title")).toBe(
      "Not counted: visitors are counted by the short URL's own UTM values, and these clicks had none",
    );
    await page.getByTestId("sources-panel").scrollIntoViewIfNeeded();
    await screenshotModes(page, "issue55-stats-visitors");
  });

  it("8: the audit log says whose action each entry is: an operator's or the account holder's own", async () => {
    const page = f.browser.page;
    await as(page, owner);
    await page.evaluate(async () => {
      const s = (await (await fetch("/api/auth/session")).json()) as { csrf_token: string };
      await fetch("/api/keys", { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token }, body: '{"name":"deploy"}' });
    });
    await as(page, ops);
    await page.evaluate(async (id) => {
      const s = (await (await fetch("/api/auth/session")).json()) as { csrf_token: string };
      await fetch(`/api/admin/accounts/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token },
        body: '{"plan":"enterprise"}',
      });
    }, ownerId);
    await page.goto("/app/admin/audit");
    await page.getByTestId("audit-row").first().waitFor();
    expect(await text(page, "audit-intro")).toBe(
      "Every operator action, and every change account holders make to their own accounts (API keys, two-factor sign-in, passkeys, team policy, single sign-on), written with the action itself. Entries cannot be changed or deleted.",
    );
    expect(await page.locator(".audit-table thead th").allTextContents()).toEqual(["When", "Who", "Action", "What"]);
    const rows = page.getByTestId("audit-row");
    const seen = await rows.evaluateAll((trs) =>
      trs.map((tr) => [
        tr.getAttribute("data-action"),
        tr.querySelector('[data-testid="audit-actor-email"]')?.textContent,
        tr.querySelector('[data-testid="audit-actor-role"]')?.textContent,
      ]),
    );
    expect(seen).toEqual([
      ["account.plan", ops, "Operator"],
      ["api_key.create", owner, "Account holder"],
    ]);
    await screenshotModes(page, "issue55-audit");
  });

  it("10: “Create this alias” stays on one line on a phone", async () => {
    const page = f.browser.page;
    await as(page, ops);
    expect((await hit(f.server.url, "/spring-lookbook-2025", "127.0.0.1")).status).toBe(404);
    await page.goto("/app/admin");
    const button = page.getByTestId("overview-orphans").getByTestId("orphan-create").first();
    await button.waitFor();
    const lines = () =>
      button.evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await button.textContent()).toBe("Create this alias");
      expect(await lines(), `at ${width} px`).toBe(1);
      // Whole in its table: nothing cut off at the frame's edge (the frame scrolls sideways rather than grow).
      const frame = page.getByTestId("overview-orphans").getByTestId("orphan-paths");
      expect(await frame.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth + 1), `at ${width} px`).toBe(true);
      expect(await button.evaluate((el) => el.getBoundingClientRect().right <= el.closest("table")!.parentElement!.getBoundingClientRect().right + 1)).toBe(
        true,
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `at ${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId("overview-orphans").scrollIntoViewIfNeeded();
    await screenshotModes(page, "issue55-orphans");
  });

  it("10: each empty state has the icon of its page", async () => {
    const page = f.browser.page;
    await as(page, fresh);
    const icon = async (path: string, testId: string) => {
      await page.goto(path);
      await page.getByTestId(testId).waitFor();
      return page.getByTestId(testId).locator(".empty-icon svg").getAttribute("data-icon");
    };
    expect(await icon("/app", "links-empty")).toBe("links");
    expect(await icon("/app/domains", "domains-empty")).toBe("domains");
    await screenshotModes(page, "issue55-empty-domains");
    expect(await icon("/app/webhooks", "webhooks-empty")).toBe("webhooks");
    await screenshotModes(page, "issue55-empty-webhooks");
    // A broker on this machine: the refusal names the setting that accepts it.
    await page.getByTestId("stream-kind-select").selectOption("redis");
    await page.getByTestId("stream-name-input").fill("Local Redis");
    await page.getByTestId("stream-url-input").fill("redis://127.0.0.1:6379");
    await page.getByTestId("stream-create").click();
    await expect
      .poll(() => page.getByTestId("stream-form").textContent())
      .toContain("is a loopback address; the server's operator can accept brokers on loopback and private networks with WEBHOOK_ALLOW_PRIVATE=true");
    expect(await icon("/app/analytics", "analytics-empty")).toBe("analytics");
    expect(await icon("/app/links/import", "import-history-empty")).toBe("imports");
  });
});
