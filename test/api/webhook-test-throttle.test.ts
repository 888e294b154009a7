// POST /api/webhooks/{id}/test is throttled per account like other writes: WEBHOOK_TESTS_PER_MINUTE test
// events, then 429 rate_limited with Retry-After, exact under concurrent requests, on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";
import { ManualClock } from "../../src/shared/clock.js";
import { WEBHOOK_TESTS_PER_MINUTE } from "../../src/webhooks/webhooks.js";

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});

describe.each(ENGINES)("webhook test events throttled per account on %s", (engine) => {
  let server: TestServer;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver(ca);
    server = await startTestServer({ engine, clock, env: { WEBHOOK_ALLOW_PRIVATE: "true" }, webhooks: { ca: ca.trust } });
  });
  afterAll(async () => {
    await server?.close();
    await rx?.close();
  });

  it("15 concurrent tests: exactly the limit delivered, the rest 429 with Retry-After; a minute later tests work again", async () => {
    const c = await signedInClient(server, `throttle-${engine}@example.com`, "business");
    const other = await signedInClient(server, `other-${engine}@example.com`, "business");
    const hook = (await c.post("/api/webhooks", { name: "T", url: rx.url("/throttle") })).body.webhook.id as string;
    const otherHook = (await other.post("/api/webhooks", { name: "O", url: rx.url("/other") })).body.webhook.id as string;

    const answers = await Promise.all(Array.from({ length: 15 }, () => c.post(`/api/webhooks/${hook}/test`)));
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status !== 200);
    expect(ok).toHaveLength(WEBHOOK_TESTS_PER_MINUTE);
    expect(ok.every((a) => a.body.delivery.status_code === 204)).toBe(true);
    expect(limited.map((a) => `${a.status} ${a.body.code}`)).toEqual(Array(15 - WEBHOOK_TESTS_PER_MINUTE).fill("429 rate_limited"));
    for (const a of limited) {
      const retry = Number(a.headers.get("retry-after"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    expect(rx.requests.filter((r) => r.url === "/throttle")).toHaveLength(WEBHOOK_TESTS_PER_MINUTE);

    // Another account has its own allowance.
    expect((await other.post(`/api/webhooks/${otherHook}/test`)).status).toBe(200);

    clock.advance(60_001);
    const again = await c.post(`/api/webhooks/${hook}/test`);
    expect(again.status).toBe(200);
    expect(rx.requests.filter((r) => r.url === "/throttle")).toHaveLength(WEBHOOK_TESTS_PER_MINUTE + 1);
  });
});
