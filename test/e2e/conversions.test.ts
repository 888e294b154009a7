// Conversions in the browser, on SQLite and (with TEST_DATABASE_URL) PostgreSQL: a tracked short link opened in
// Chromium lands on a shop served on loopback with /_snip/track.js; its sign-up form sends window.snip.clickId() to
// the shop's server, which records the lead with an API key of scope conversions:write; a Stripe
// checkout.session.completed signed with the stripe library's own test header goes to the endpoint the Conversions
// page set up; the link's statistics (API, link page, statistics page) then show 1 click, 1 lead, 1 sale and the
// revenue on the first read after the webhook answered. Then the settings page, the customers pages (erase), the builder's controls and a
// split's test and decision. Screenshots at 1280 and 390 px, light and dark.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture } from "./browser.js";
import { ENGINES } from "../helpers/engines.js";
import { UA } from "../helpers/visit.js";
import { newClickId, recordLead, storeTrackedClicks, trackedRow } from "../../src/conversions/index.js";

const available = browserAvailable();
const SECRET = "whsec_e2e_0123456789abcdefABCDEF";
const PASSWORD = "conversions-password-1";

/** The shop: a landing page with snip's script and a sign-up form, and the server side that reports the lead. */
function startShop(snipUrl: () => string, apiKey: () => string) {
  const leads: Array<{ status: number; body: Record<string, unknown> }> = [];
  const page = (snip: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="${snip}/_snip/track.js"></script></head><body>
<h1>The shop</h1>
<form id="signup"><input name="email" type="email" value="" aria-label="Email"><input type="hidden" name="snip_click_id">
<button type="submit">Sign up</button></form><p id="result"></p>
<script>
document.querySelector("#signup").addEventListener("submit", async (e) => {
  e.preventDefault();
  const form = e.target;
  form.snip_click_id.value = window.snip.clickId() ?? "";
  const r = await fetch("/signup", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: form.email.value, click_id: form.snip_click_id.value }) });
  document.querySelector("#result").textContent = r.ok ? "Signed up" : "Failed " + r.status;
});
</script></body></html>`;
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.startsWith("/landing")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(page(snipUrl()));
    }
    if (req.method === "POST" && req.url === "/signup") {
      let raw = "";
      req.on("data", (c: Buffer) => (raw += c.toString()));
      req.on("end", () => {
        const { email, click_id } = JSON.parse(raw) as { email: string; click_id: string };
        void fetch(`${snipUrl()}/api/track/lead`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey()}`, "content-type": "application/json" },
          body: JSON.stringify({ click_id, customer_external_id: `shop-${email}`, event_name: "Sign up", customer_email: email }),
        }).then(async (r) => {
          leads.push({ status: r.status, body: (await r.json()) as Record<string, unknown> });
          res.writeHead(r.ok ? 200 : 502, { "content-type": "application/json" });
          res.end("{}");
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  return {
    leads,
    server,
    start: () => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!available).each(ENGINES)("conversions in the browser (%s)", (engine) => {
  let f: BrowserFixture;
  let page: Page;
  let key = "";
  let shopPort = 0;
  const shop = startShop(
    () => f.server.url,
    () => key,
  );
  const email = `conv-${engine}@example.com`;
  let owner: Awaited<ReturnType<BrowserFixture["server"]["ctx"]["accounts"]["create"]>>;
  let linkId = "";
  const db = () => f.server.ctx.storage.db;
  const api = async (path: string) => {
    const r = await page.request.get(path);
    return { status: r.status(), body: (await r.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    f = await startBrowserFixture({ engine });
    page = f.browser.page;
    // Headless Chromium says so in its user agent, which counts it as a bot: this visitor is a person's browser.
    const cdp = await f.browser.context.newCDPSession(page);
    await cdp.send("Network.setUserAgentOverride", { userAgent: UA.windows });
    shopPort = await shop.start();
    owner = await f.server.ctx.accounts.create({ email, password: PASSWORD, plan: "business", verified: true });
    key = (await f.server.ctx.apiKeys.create(owner, { name: "Shop server", scopes: ["conversions:write"] })).secret;
    await signInPage(page, email, PASSWORD);
  });
  afterAll(async () => {
    await shop.close();
    await f?.close();
  });

  it("a tracked link's visit, the shop's lead and a signed Stripe checkout show as 1 click, 1 lead, 1 sale and €49.00", async () => {
    // The Stripe endpoint, set up on the Conversions page: its address is what Stripe is given.
    await page.goto("/app/conversions");
    await page.getByTestId("stripe-none").waitFor();
    await page.getByTestId("stripe-secret").fill(SECRET);
    await page.getByTestId("stripe-save").click();
    const endpointUrl = (await page.getByTestId("stripe-endpoint-url").textContent()) ?? "";
    expect(endpointUrl).toMatch(new RegExp(`^${f.server.url.replace(/\./g, "\\.")}/api/integrations/stripe/webhook/[A-Za-z0-9_-]{43}$`));
    expect((await api("/api/integrations/stripe")).body.endpoint_url).toBe(endpointUrl);

    // The shop is on another origin (shop.localhost, which Chromium resolves to loopback): not snip's own host.
    const link = await f.server.ctx.links.create(owner, {
      url: `http://shop.localhost:${shopPort}/landing?from=ad`,
      alias: `shop-${engine}`,
      track_conversions: true,
    });
    linkId = link.id;
    await page.goto(`${f.server.url}/${link.alias}`);
    await page.waitForURL((u) => u.host === `shop.localhost:${shopPort}` && u.pathname === "/landing");
    const landed = new URL(page.url());
    expect(landed.searchParams.get("from")).toBe("ad");
    const clickId = landed.searchParams.get("snip_id") ?? "";
    expect(clickId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await page.evaluate(() => (window as unknown as { snip: { clickId(): string | null } }).snip.clickId())).toBe(clickId);
    // The click is written a fraction of a second after the redirect; the test writes it now rather than sleep.
    await f.server.ctx.clicks.writeBuffered();
    await f.server.ctx.clicks.flush();

    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByText("Signed up").waitFor();
    expect(shop.leads).toHaveLength(1);
    expect(shop.leads[0]!.status).toBe(201);
    expect(shop.leads[0]!.body.lead).toMatchObject({ click_id: clickId, link_id: link.id, event_name: "Sign up", destination: null });

    // Stripe's checkout of that customer, signed as Stripe signs: a sale of €49.00 (no second lead).
    const payload = JSON.stringify({
      id: `evt_e2e_${engine}`,
      object: "event",
      type: "checkout.session.completed",
      api_version: "2025-01-27.acacia",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `cs_e2e_${engine}`,
          object: "checkout.session",
          client_reference_id: null,
          metadata: { snip_customer_id: "shop-ada@example.com" },
          amount_total: 4900,
          currency: "eur",
          payment_status: "paid",
          payment_intent: `pi_e2e_${engine}`,
        },
      },
    });
    const hook = await fetch(endpointUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) },
      body: payload,
    });
    expect([hook.status, await hook.json()]).toEqual([200, { status: "success", received: true, outcome: "sale" }]);

    // Fresh at once: the first read, sent as soon as the webhook answered (no waiting, no second try), shows the sale.
    // (How long that read takes is the statistics' speed, which bench:stats measures; not timed here.)
    const stats = (await api(`/api/links/${link.id}/stats`)).body;
    expect([stats.total_clicks, stats.range_clicks, stats.leads, stats.sales, stats.revenue]).toEqual([1, 1, 1, 1, { EUR: 4900 }]);
    expect(stats.destinations).toEqual([
      { destination: "default", url: link.url, clicks: 1, share: 1, leads: 1, sales: 1, revenue: { EUR: 4900 }, leads_per_click: 1, sales_per_lead: 1 },
    ]);
    expect(stats.tracks_conversions).toBe(true);

    await page.goto(`/app/links/${link.id}`);
    await page.getByTestId("conversion-funnel").waitFor();
    expect(await page.getByTestId("funnel-clicks").getAttribute("data-value")).toBe("1");
    expect(await page.getByTestId("funnel-leads").getAttribute("data-value")).toBe("1");
    expect(await page.getByTestId("funnel-sales").getAttribute("data-value")).toBe("1");
    expect(await page.getByTestId("funnel-revenue").textContent()).toBe("€49.00");
    expect(await page.getByTestId("link-page-clicks").textContent()).toBe("1");
    await screenshotModes(page, "conv-link-page");

    await page.goto(`/app/links/${link.id}/stats`);
    await page.getByTestId("conversion-funnel").waitFor();
    expect(await page.getByTestId("funnel-revenue").textContent()).toBe("€49.00");
    expect(await page.getByTestId("funnel-leads").textContent()).toContain("100%");
    await screenshotModes(page, "conv-stats");
  });

  it("analytics shows the account's leads, sales and revenue beside its clicks", async () => {
    await page.goto("/app/analytics");
    await page.getByTestId("tile-leads").waitFor();
    expect(await page.getByTestId("range-clicks").textContent()).toBe("1");
    expect(await page.getByTestId("range-leads").textContent()).toBe("1");
    expect(await page.getByTestId("range-sales").textContent()).toBe("1");
    expect(await page.getByTestId("range-revenue").textContent()).toBe("€49.00");
    await screenshotModes(page, "conv-analytics");
  });

  it("the settings page saves the defaults, shows the snippet with the parameter, and removes the Stripe endpoint", async () => {
    await page.goto("/app/conversions");
    await page.getByTestId("stripe-configured").waitFor();
    expect(await page.getByTestId("conv-track").isChecked()).toBe(false);
    expect(await page.getByTestId("conv-param").inputValue()).toBe("snip_id");
    expect(await page.getByTestId("conv-days").inputValue()).toBe("90");
    expect(await page.getByTestId("conv-snippet").textContent()).toBe(
      `<script src="${f.server.url}/_snip/track.js"></script>\n<script>document.querySelector("#signup input[name=snip_click_id]").value = window.snip.clickId() ?? "";</script>`,
    );
    await screenshotModes(page, "conv-settings");

    await page.getByTestId("conv-param").fill("bad param!");
    await page.getByTestId("conv-settings-save").click();
    await page.getByTestId("conv-param-error").or(page.getByTestId("conv-settings-error")).waitFor();
    expect((await api("/api/conversions/settings")).body.settings.conversion_param).toBe("snip_id");

    await page.getByTestId("conv-track").check();
    await page.getByTestId("conv-param").fill("ref_id");
    await page.getByTestId("conv-days").fill("30");
    await page.getByTestId("conv-settings-save").click();
    await page.getByTestId("conv-settings-saved").waitFor();
    expect((await api("/api/conversions/settings")).body.settings).toEqual({ track_conversions: true, conversion_param: "ref_id", attribution_days: 30 });
    expect(await page.getByTestId("conv-snippet").textContent()).toContain(`<script src="${f.server.url}/_snip/track.js" data-param="ref_id"></script>`);

    await page.getByTestId("stripe-remove").click();
    await page.getByTestId("confirm-cancel").click();
    expect(await page.getByTestId("stripe-configured").isVisible()).toBe(true);
    await page.getByTestId("stripe-remove").click();
    await page.getByTestId("confirm-ok").click();
    await page.getByTestId("stripe-none").waitFor();
    expect((await api("/api/integrations/stripe")).status).toBe(404);
    // Back to the defaults the other tests expect.
    await page.getByTestId("conv-track").uncheck();
    await page.getByTestId("conv-param").fill("snip_id");
    await page.getByTestId("conv-days").fill("90");
    await page.getByTestId("conv-settings-save").click();
    await page.getByTestId("conv-settings-saved").waitFor();
  });

  it("the customers page lists the customer, shows their click, lead and sale, and erases them after a confirmation", async () => {
    await page.goto("/app/customers");
    await page.getByTestId("customer-row").first().waitFor();
    expect(await page.getByTestId("customer-row").count()).toBe(1);
    expect(await page.getByTestId("customer-row").textContent()).toContain("shop-ada@example.com");
    await screenshotModes(page, "conv-customers");
    await page.getByTestId("customer-link").click();
    await page.waitForURL((u) => u.pathname === `/app/customers/${encodeURIComponent("shop-ada@example.com")}`);
    await page.getByTestId("customer-facts").waitFor();
    expect(await page.getByTestId("customer-heading").textContent()).toBe("shop-ada@example.com");
    expect(await page.getByTestId("customer-lead").count()).toBe(1);
    expect(await page.getByTestId("customer-lead").textContent()).toContain("Sign up");
    expect(await page.getByTestId("customer-sale-amount").textContent()).toBe("€49.00");
    expect(await page.getByTestId("customer-facts").textContent()).toContain(`shop-${engine}`);
    await screenshotModes(page, "conv-customer");

    await page.getByTestId("customer-erase").click();
    await page.getByTestId("confirm-cancel").click();
    expect((await api(`/api/conversions/customers/${encodeURIComponent("shop-ada@example.com")}`)).status).toBe(200);
    await page.getByTestId("customer-erase").click();
    await page.getByTestId("confirm-ok").click();
    await page.getByTestId("customer-erased").waitFor();
    await page.getByTestId("customers-empty").waitFor();
    expect((await api(`/api/conversions/customers/${encodeURIComponent("shop-ada@example.com")}`)).status).toBe(404);
    // The counts stay, without a person.
    const stats = (await api(`/api/links/${linkId}/stats`)).body;
    expect([stats.leads, stats.sales]).toEqual([1, 1]);

    // A failed read says so, with a retry that works.
    let fail = true;
    await page.route("**/api/conversions/customers?*", (route) => (fail ? route.fulfill({ status: 500, body: "{}" }) : route.continue()));
    await page.route("**/api/conversions/customers", (route) => (fail ? route.fulfill({ status: 500, body: "{}" }) : route.continue()));
    await page.goto("/app/customers");
    await page.getByTestId("customers-error").waitFor();
    fail = false;
    await page.getByTestId("customers-error").getByRole("button", { name: "Try again" }).click();
    await page.getByTestId("customers-empty").waitFor();
    await page.unrouteAll();
  });

  it("the builder sets conversion tracking and a split's goal and end; a Pro account sees the plan note once", async () => {
    await page.goto("/app/links/new");
    await page.getByTestId("link-url").fill("https://shop.example.com/builder");
    await page.getByTestId("option-conversions-toggle").click();
    await page.getByTestId("link-track-conversions").selectOption("on");
    await page.getByTestId("option-split-toggle").click();
    await page.getByTestId("split-add").click();
    await page.getByTestId("variant-1-url").fill("https://shop.example.com/b");
    await page.getByTestId("link-split-goal").selectOption("sales");
    await page.getByTestId("link-split-min-visits").fill("0");
    await page.getByTestId("link-submit").click();
    expect(await page.getByTestId("link-split-min-visits-error").textContent()).toBe("A whole number from 1 to 100,000,000");
    await page.getByTestId("link-split-min-visits").fill("500");
    await screenshotModes(page, "conv-builder");
    await page.getByTestId("link-submit").click();
    await page.waitForURL(/\/app\/links\/[^/]+\?created=1$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const created = (await api(`/api/links/${id}`)).body.link;
    expect([created.track_conversions, created.split_goal, created.split_min_visits, created.split_ends_at]).toEqual([true, "sales", 500, null]);

    // Editing back to the account's default sends null.
    await page.goto(`/app/links/${id}/edit`);
    expect(await page.getByTestId("link-track-conversions").inputValue()).toBe("on");
    await page.getByTestId("link-track-conversions").selectOption("");
    await page.getByTestId("link-submit").click();
    await page.getByTestId("link-saved").waitFor();
    expect((await api(`/api/links/${id}`)).body.link.track_conversions).toBeNull();

    const pro = await f.server.ctx.accounts.create({ email: `conv-pro-${engine}@example.com`, password: PASSWORD, plan: "pro", verified: true });
    await f.browser.context.clearCookies();
    await signInPage(page, pro.email, PASSWORD);
    await page.goto("/app/links/new");
    await page.getByTestId("form-plan-note").waitFor();
    expect(await page.getByTestId("option-conversions").count()).toBe(0);
    expect((await page.getByTestId("form-plan-note").textContent())?.match(/conversion tracking/gi)).toHaveLength(1);
    await page.goto("/app/conversions");
    await page.getByTestId("conversions-upgrade").waitFor();
    await page.goto("/app/customers");
    await page.getByTestId("customers-upgrade").waitFor();
    await f.browser.context.clearCookies();
    await signInPage(page, email, PASSWORD);
  });

  it("a running split shows each variant's rate and 95 % interval; the decision shows once made", async () => {
    const split = (extra: Record<string, unknown>) =>
      f.server.ctx.links.create(owner, {
        url: "https://shop.example.com/",
        split: [
          { url: "https://shop.example.com/a", weight: 50 },
          { url: "https://shop.example.com/b", weight: 50 },
        ],
        split_goal: "leads",
        ...extra,
      });
    const today = new Date().toISOString().slice(0, 10);
    const seed = async (id: string, clicks: number[], leads: number[]) => {
      await db()
        .insertInto("click_daily")
        .values({ link_id: id, day: today, clicks: clicks.reduce((s, n) => s + n, 0), bots: 0 })
        .execute();
      await db()
        .insertInto("click_breakdown")
        .values(clicks.map((n, i) => ({ link_id: id, day: today, dimension: "destination", value: `variant:${i + 1}`, clicks: n })))
        .execute();
      await db()
        .updateTable("links")
        .set({ click_count: clicks.reduce((s, n) => s + n, 0) })
        .where("id", "=", id)
        .execute();
      for (const [i, n] of leads.entries()) {
        const ids = Array.from({ length: n }, () => newClickId());
        await storeTrackedClicks(
          f.server.ctx.storage,
          ids.map((c) =>
            trackedRow({
              id: c,
              ownerId: owner.id,
              linkId: id,
              destination: `variant:${i + 1}`,
              country: null,
              userAgent: UA.windows,
              referer: "",
              at: Date.now(),
            }),
          ),
        );
        for (const c of ids)
          await recordLead(db(), { id: owner.id, attribution_days: 90 }, { click_id: c, customer_external_id: `s-${c}`, event_name: "Sign up" }, Date.now());
      }
    };
    const running = await split({ split_min_visits: 5000 });
    await seed(running.id, [1000, 1000], [30, 50]);
    await page.goto(`/app/links/${running.id}/stats`);
    await page.getByTestId("split-test").waitFor();
    expect(await page.getByTestId("split-test-goal").textContent()).toBe("Goal: leads per click · ends once every variant has 5,000 visits");
    expect(await page.getByTestId("split-rate-variant:1").textContent()).toBe("3.0%");
    expect(await page.getByTestId("split-rate-variant:2").textContent()).toBe("5.0%");
    expect(await page.getByTestId("split-interval-variant:2").textContent()).toMatch(/^\d\.\d% – \d\.\d%$/);
    expect(await page.getByTestId("split-decision").count()).toBe(0);
    expect(await page.getByTestId("conversion-leads-variant:2").textContent()).toBe("50");
    await screenshotModes(page, "conv-split-running");

    const decided = await split({ split_min_visits: 1000 });
    await seed(decided.id, [1000, 1000], [30, 50]);
    const even = await split({ split_ends_at: new Date(Date.now() + 60_000).toISOString() });
    await seed(even.id, [1000, 1000], [30, 31]);
    await db()
      .updateTable("links")
      .set({ split_ends_at: Date.now() - 1000 })
      .where("id", "=", even.id)
      .execute();
    expect(await f.server.ctx.splits.runDue()).toBe(2);
    await page.goto(`/app/links/${decided.id}`);
    await page.getByTestId("split-decision").waitFor();
    expect(await page.getByTestId("split-decision").textContent()).toMatch(/^Winner: Variant B \(https:\/\/shop\.example\.com\/b\) /);
    await page.goto(`/app/links/${even.id}`);
    await page.getByTestId("split-decision").waitFor();
    expect(await page.getByTestId("split-decision").textContent()).toMatch(/^No clear winner /);
    // The split goes on: its variants still show, beside the decision (the statistics load after the link).
    await page.getByTestId("split-variant-variant:2").waitFor();
    expect(await page.locator("[data-testid^=split-variant-]").count()).toBe(2);
    await screenshotModes(page, "conv-split-decided");
  });
});
