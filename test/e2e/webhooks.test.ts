// Browser test of the Webhooks page: plan hint, empty state, a refused address, create with the secret
// shown once (copy), the events it takes, send a test event to a real HTTPS receiver and see it in the log, a click delivered,
// deactivate, rotate, delete with confirmation, and the error state.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, signInPage, startBrowserFixture, screenshot, type BrowserFixture, type BrowserSession } from "./browser.js";
import type { TestServer } from "../helpers/server.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";
import { visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";

const available = browserAvailable();

describe.skipIf(!available)("webhooks page in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  let ca: TestCa;
  let rx: Receiver;
  const password = "business-password-1";
  const business = `wh-biz-${Date.now()}@example.com`;
  const pro = `wh-pro-${Date.now()}@example.com`;

  beforeAll(async () => {
    ca = makeTestCa();
    rx = await startReceiver(ca);
    fixture = await startBrowserFixture({ env: { WEBHOOK_ALLOW_PRIVATE: "true" }, webhooks: { ca: ca.trust } });
    ({ server, browser } = fixture);
    await server.ctx.accounts.create({ email: business, password, plan: "business", verified: true });
    await server.ctx.accounts.create({ email: pro, password, plan: "pro", verified: true });
  });
  afterAll(async () => {
    await fixture?.close();
    await rx?.close();
  });

  it("Pro sees the upgrade hint instead of the page", async () => {
    const page = browser.page;
    await signInPage(page, pro, password);
    await page.getByTestId("nav-webhooks").click();
    await page.getByTestId("webhooks-upgrade").waitFor();
    expect(await page.getByTestId("webhooks-upgrade").textContent()).toContain("Business and Enterprise");
    await page.getByTestId("sign-out").click();
    await page.getByTestId("nav-login").waitFor();
  });

  it("creates a webhook, shows the secret once, delivers a test event and a click, and logs them", async () => {
    const page = browser.page;
    await signInPage(page, business, password);
    await page.getByTestId("nav-webhooks").click();
    await page.getByTestId("webhooks-empty").waitFor();
    expect(await page.getByTestId("webhook-count").textContent()).toContain("0 of 5 used");
    // This server runs with WEBHOOK_ALLOW_PRIVATE=true: the help text says private receivers are accepted.
    expect(await page.locator("#webhook-url-input ~ .field-hint").textContent()).toContain(
      "accepts receivers on loopback and private networks too (WEBHOOK_ALLOW_PRIVATE)",
    );
    await screenshot(page, "e2e-webhooks-01-empty");

    // A refused address: the reason is shown beside the URL field.
    await page.getByLabel("Name", { exact: true }).fill("Internal");
    await page.getByLabel("Receiver URL").fill("https://169.254.169.254/latest/meta-data");
    await page.getByTestId("webhook-create").click();
    await page.getByTestId("webhook-url-input-error").waitFor();
    expect(await page.getByTestId("webhook-url-input-error").textContent()).toContain("link-local");
    await screenshot(page, "e2e-webhooks-02-refused");

    await page.getByLabel("Name", { exact: true }).fill("Order <b>system</b>");
    await page.getByLabel("Receiver URL").fill(rx.url("/e2e"));
    await page.getByTestId("webhook-create").click();
    await page.getByTestId("webhook-secret-box").waitFor();
    const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    await page.getByTestId("webhook-secret-copy").click();
    await page.waitForFunction(() => /Copied|Copy failed/.test(document.querySelector('[data-testid="webhook-secret-copy"]')?.textContent ?? ""));
    await page.getByTestId("webhook-row").waitFor();
    // User text is shown as text, not markup.
    expect(await page.getByTestId("webhook-name").textContent()).toBe("Order <b>system</b>");
    expect(await page.getByTestId("webhook-kind").textContent()).toBe("Custom");
    expect(await page.getByTestId("webhook-events").textContent()).toBe("Clicks");
    expect(await page.getByTestId("webhook-state").textContent()).toBe("Active");
    expect(await page.getByTestId("webhook-last").textContent()).toContain("Never");
    await screenshot(page, "e2e-webhooks-03-created-secret");

    // Shown once: hidden, then gone after a reload.
    await page.getByTestId("webhook-secret-hide").click();
    await page.reload();
    await page.getByTestId("webhook-row").waitFor();
    expect(await page.getByTestId("webhook-secret-box").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await page.getByTestId("webhook-test").click();
    await page.getByTestId("webhook-notice").waitFor();
    expect(await page.getByTestId("webhook-notice").textContent()).toMatch(/Test event delivered to “Order <b>system<\/b>”: HTTP 204/);
    await page.getByTestId("delivery-row").first().waitFor();
    expect(await page.getByTestId("delivery-row").count()).toBe(1);
    expect(await page.getByTestId("delivery-row").first().textContent()).toContain("204 OK");
    expect(await page.getByTestId("delivery-row").first().getByTestId("delivery-test").textContent()).toBe("Test");
    expect(await page.getByTestId("webhook-last").textContent()).toContain("204 OK");
    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0]?.body ?? "{}").test).toBe(true);
    // The payload as the receiver got it.
    await page.getByTestId("delivery-payload-toggle").click();
    expect(JSON.parse((await page.getByTestId("delivery-payload").textContent()) ?? "")).toEqual(JSON.parse(rx.requests[0]?.body ?? ""));
    await screenshot(page, "e2e-webhooks-04-test-logged");

    // A real click on one of the account's links arrives and shows in the log after a refresh.
    const link = await page.evaluate(async () => {
      const s = await (await fetch("/api/auth/session")).json();
      const r = await fetch("/api/links", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": s.csrf_token },
        body: JSON.stringify({ url: "https://example.com/e2e" }),
      });
      return (await r.json()).link as { alias: string };
    });
    expect(await visit(server.url, `/${link.alias}`)).toBe(302);
    await rx.waitFor(2);
    // The delivery log is written in batches (once a second at most): until the click's delivery is stored.
    const stored = async () =>
      Number(
        (
          await server.ctx.storage.db
            .selectFrom("webhook_deliveries")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitFor(async () => (await stored()) === 2, { what: "the click's delivery in the log" });
    await page.getByTestId("delivery-log-refresh").click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="delivery-row"]').length === 2);
    // The click is no test: only the older delivery carries the mark.
    expect(await page.getByTestId("delivery-row").first().getByTestId("delivery-test").count()).toBe(0);
    expect(await page.getByTestId("delivery-row").nth(1).getByTestId("delivery-test").count()).toBe(1);
    await screenshot(page, "e2e-webhooks-05-click-logged");
  });

  it("deactivates, rotates the secret and deletes with confirmation", async () => {
    const page = browser.page;
    await page.getByTestId("webhook-toggle").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="webhook-state"]')?.textContent === "Inactive");
    await page.getByTestId("webhook-toggle").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="webhook-state"]')?.textContent === "Active");

    await page.getByTestId("webhook-rotate").click();
    await page.getByTestId("confirm-dialog").filter({ hasText: "Rotate the secret?" }).getByTestId("confirm-ok").click();
    await page.getByTestId("webhook-secret-box").waitFor();
    expect(await page.getByTestId("webhook-secret-box").textContent()).toContain("the old secret no longer signs anything");
    await screenshot(page, "e2e-webhooks-06-rotated");

    await page.getByTestId("webhook-delete").click();
    await page.getByTestId("confirm-dialog").filter({ hasText: "Delete this webhook?" }).waitFor();
    await screenshot(page, "e2e-webhooks-07-confirm-delete");
    await page.getByTestId("confirm-dialog").filter({ hasText: "Delete this webhook?" }).getByTestId("confirm-ok").click();
    await page.getByTestId("webhooks-empty").waitFor();
  });

  it("adds a webhook that takes the events chosen instead of clicks", async () => {
    const page = browser.page;
    await page.getByLabel("Name", { exact: true }).fill("Apps and leads");
    await page.getByLabel("Receiver URL").fill(rx.url("/apps"));
    // Clicks are chosen by default; with nothing chosen the form cannot be sent.
    expect(await page.getByTestId("webhook-event-link_click").isChecked()).toBe(true);
    await page.getByTestId("webhook-event-link_click").uncheck();
    expect(await page.getByTestId("webhook-create").isDisabled()).toBe(true);
    await page.getByTestId("webhook-event-app.install").check();
    await page.getByTestId("webhook-event-lead.created").check();
    await screenshot(page, "e2e-webhooks-08-events");
    await page.getByTestId("webhook-create").click();
    await page.getByTestId("webhook-row").waitFor();
    // The registry's order, whatever the order of the clicks.
    expect(await page.getByTestId("webhook-events").textContent()).toBe("Leads, App installs");
    const stored = await server.ctx.storage.db.selectFrom("webhooks").select("events").where("name", "=", "Apps and leads").executeTakeFirstOrThrow();
    expect(stored.events).toBe("lead.created,app.install");
    // The form is back to clicks alone for the next one.
    expect(await page.getByTestId("webhook-event-link_click").isChecked()).toBe(true);
    expect(await page.getByTestId("webhook-event-app.install").isChecked()).toBe(false);
    await page.getByTestId("webhook-secret-hide").click();
    await page.getByTestId("webhook-delete").click();
    await page.getByTestId("confirm-dialog").filter({ hasText: "Delete this webhook?" }).getByTestId("confirm-ok").click();
    await page.getByTestId("webhooks-empty").waitFor();
  });

  it("shows the error state with a retry when the list cannot be loaded", async () => {
    const page = browser.page;
    await page.route("**/api/webhooks", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"status":"error","code":"internal_error","message":"Internal error"}' }),
    );
    await page.reload();
    await page.getByTestId("webhooks-error").waitFor();
    await screenshot(page, "e2e-webhooks-09-error");
    await page.unroute("**/api/webhooks");
    await page.getByTestId("webhooks-retry").click();
    await page.getByTestId("webhooks-empty").waitFor();
  });
});
