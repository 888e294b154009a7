// Browser test of the click streams section of the Webhooks page: empty state, a refused URL with its reason
// beside the field, a stream to the real Redis of 127.0.0.1 created (password shown as ***), a click
// delivered and counted in its status, turned off, deleted; the same for ClickHouse's kind against the real
// ClickHouse of 127.0.0.1 (a refused password shown as its status); screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, screenshotModes, signInPage, startBrowserFixture, type BrowserFixture, type BrowserSession } from "./browser.js";
import type { TestServer } from "../helpers/server.js";
import { createLink } from "../helpers/links.js";
import { signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { brokersUp, clickhouse, clickhouseUp } from "../helpers/broker-consumers.js";

const up = await brokersUp();
const clickhouseOn = await clickhouseUp();

describe.skipIf(!browserAvailable())("click streams in the browser", () => {
  let server: TestServer;
  let browser: BrowserSession;
  let fixture: BrowserFixture;
  const password = "business-password-1";
  const email = `st-biz-${Date.now()}@example.com`;

  beforeAll(async () => {
    fixture = await startBrowserFixture({ env: { WEBHOOK_ALLOW_PRIVATE: "true", STREAM_POLL_MS: "50", CLICK_FLUSH_MS: "50" } });
    ({ server, browser } = fixture);
    await server.ctx.accounts.create({ email, password, plan: "business", verified: true });
    await signInPage(browser.page, email, password);
  });
  afterAll(async () => fixture?.close());

  /** A click on a new link of the account, then the page reloaded until both streams' status reads `expected`. */
  async function clickUntilStatus(url: string, expected: RegExp): Promise<{ id: string; alias: string }> {
    const api = await signedInClient({ url: server.url, ctx: { accounts: { create: async () => undefined } } }, email, "business", password);
    const link = await createLink(api, { url });
    expect(await visit(server.url, `/${link.alias}`, { "user-agent": UA.iphone })).toBe(302);
    const rows = browser.page.getByTestId("stream-row");
    await expect
      .poll(
        async () => {
          await browser.page.reload();
          await rows.nth(1).getByTestId("stream-status").waitFor();
          return `${await rows.nth(0).getByTestId("stream-status").textContent()} | ${await rows.nth(1).getByTestId("stream-status").textContent()}`;
        },
        { timeout: 15_000 },
      )
      .toMatch(expected);
    return link;
  }

  /** Deletes the first stream `n` times, confirming each, until the list is empty. */
  async function deleteStreams(n: number): Promise<void> {
    const rows = browser.page.getByTestId("stream-row");
    for (let left = n; left > 0; left--) {
      await rows.first().getByTestId("stream-delete").click();
      await browser.page.getByRole("button", { name: "Delete stream" }).click();
      if (left > 1) await expect.poll(() => rows.count()).toBe(left - 1);
    }
    await browser.page.getByTestId("streams-empty").waitFor();
  }

  it.skipIf(!up.redis)(
    "adds a stream to Redis, shows its delivery status, turns it off and deletes it",
    async () => {
      const page = browser.page;
      await page.getByTestId("nav-webhooks").click();
      await page.getByTestId("streams-empty").waitFor();
      expect(await page.getByTestId("stream-count").textContent()).toContain("0 of 5 used");
      await screenshotModes(page, "e2e-streams-01-empty");

      await page.getByTestId("stream-kind-select").selectOption("redis");
      await page.getByTestId("stream-name-input").fill("Warehouse");
      await page.getByTestId("stream-url-input").fill("amqp://127.0.0.1:5672");
      await page.getByTestId("stream-create").click();
      await page.getByTestId("stream-url-input-error").waitFor();
      expect(await page.getByTestId("stream-url-input-error").textContent()).toContain("must start with redis:// or rediss:// for redis");

      // A password the broker does not expect: shown as ***, and the broker's refusal shown as the status.
      await page.getByTestId("stream-url-input").fill("redis://:hunter2-secret@127.0.0.1:6379");
      await page.getByTestId("stream-create").click();
      await page.getByTestId("stream-row").waitFor();
      expect(await page.getByTestId("stream-row").textContent()).toContain("redis://:***@127.0.0.1:6379");
      expect(await page.content()).not.toContain("hunter2-secret");
      await page.getByTestId("stream-kind-select").selectOption("redis");
      await page.getByTestId("stream-name-input").fill("Open");
      await page.getByTestId("stream-url-input").fill("redis://127.0.0.1:6379");
      await page.getByTestId("stream-create").click();
      await expect.poll(() => page.getByTestId("stream-row").count()).toBe(2);

      // A click on the account's link: the open stream delivers it, the other shows the broker's answer.
      await clickUntilStatus("https://example.com/stream-e2e", /^0 delivered · 1 waiting.*ERR AUTH.* \| 1 delivered · 0 waitingLast sent/);
      await screenshotModes(page, "e2e-streams-02-status");

      const row = page.getByTestId("stream-row").nth(1);
      await row.getByTestId("stream-toggle").click();
      await expect.poll(() => row.textContent()).toContain("Off");
      await deleteStreams(2);
    },
    60_000,
  );

  it.skipIf(!clickhouseOn)(
    "adds a ClickHouse stream: a database path checked, a refused password shown as its status, a click in its tables",
    async () => {
      const db = `snip_e2e_${Date.now().toString(36)}`;
      const page = browser.page;
      await page.getByTestId("nav-webhooks").click();
      await page.getByTestId("stream-form").waitFor();
      await page.getByTestId("stream-kind-select").selectOption("clickhouse");
      expect(await page.getByTestId("stream-form").textContent()).toContain("https://user:password@clickhouse.example.com:8443/snip");
      await page.getByTestId("stream-name-input").fill("Warehouse");
      await page.getByTestId("stream-url-input").fill(`http://127.0.0.1:8123/${db}/clicks`);
      await page.getByTestId("stream-create").click();
      await page.getByTestId("stream-url-input-error").waitFor();
      expect(await page.getByTestId("stream-url-input-error").textContent()).toContain("must have a database name as its path");
      await screenshotModes(page, "e2e-streams-03-clickhouse-form");

      await page.getByTestId("stream-url-input").fill(`http://default:hunter2-secret@127.0.0.1:8123/${db}`);
      await page.getByTestId("stream-create").click();
      await page.getByTestId("stream-row").waitFor();
      expect(await page.getByTestId("stream-row").textContent()).toContain(`http://default:***@127.0.0.1:8123/${db}`);
      expect(await page.content()).not.toContain("hunter2-secret");
      await page.getByTestId("stream-kind-select").selectOption("clickhouse");
      await page.getByTestId("stream-name-input").fill("Open");
      await page.getByTestId("stream-url-input").fill(`http://127.0.0.1:8123/${db}`);
      await page.getByTestId("stream-create").click();
      await expect.poll(() => page.getByTestId("stream-row").count()).toBe(2);

      const link = await clickUntilStatus(
        "https://example.com/stream-clickhouse-e2e",
        /^0 delivered · 1 waiting.*ClickHouse answered \d{3}: Code: \d+.*password.* \| 1 delivered · 0 waitingLast sent/,
      );
      expect(await clickhouse(`SELECT link_id, device FROM ${db}.snip_clicks FINAL`)).toEqual([{ link_id: link.id, device: "mobile" }]);
      await screenshotModes(page, "e2e-streams-04-clickhouse-status");

      await deleteStreams(2);
      await clickhouse(`DROP DATABASE IF EXISTS ${db}`);
    },
    60_000,
  );
});
