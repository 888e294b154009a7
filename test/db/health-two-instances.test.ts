// Two snip instances over one PostgreSQL database check link destinations together: the lease (FOR UPDATE SKIP
// LOCKED) gives each due destination to one of them, so the receiver sees each destination once per cycle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/shared/clock.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { type TestDns, startDns } from "../helpers/webhook-receivers.js";
import { type Destinations, startDestinations } from "../helpers/health-receivers.js";

const DAY = 86_400_000;

describe.skipIf(!process.env.TEST_DATABASE_URL)("link health on two PostgreSQL instances", () => {
  let a: TestServer;
  let b: TestServer;
  let dest: Destinations;
  let dns: TestDns;
  const clockA = new ManualClock();
  const clockB = new ManualClock();

  beforeAll(async () => {
    dest = await startDestinations();
    dns = await startDns((name) => (name.endsWith(".test") ? ["127.0.0.1"] : []));
    const env = { LINK_CHECKS: "on", WEBHOOK_ALLOW_PRIVATE: "true", DNS_SERVERS: dns.server, LINK_CHECK_HOST_RATE: "10000", LINK_CHECK_HOST_CONCURRENCY: "2" };
    a = await startTestServer({ engine: "postgres", clock: clockA, env });
    b = await startTestServer({ engine: "postgres", clock: clockB, databaseUrl: a.databaseUrl, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dest?.close();
    await dns?.close();
  });

  it("never checks one destination twice in a cycle", async () => {
    const c = await signedInClient(a, "two-instances@example.com", "enterprise");
    dest.eachDelayMs = 2;
    const urls = Array.from({ length: 300 }, (_, i) => `${dest.origin}/each/${i}`);
    expect((await c.post("/api/links/bulk", { urls: urls.join("\n") })).status).toBe(200);
    await a.ctx.linkHealth.runNow();
    for (let cycle = 0; cycle < 2; cycle++) {
      dest.seen.length = 0;
      clockA.advance(DAY);
      clockB.advance(DAY);
      await Promise.all([a.ctx.linkHealth.runNow(), b.ctx.linkHealth.runNow(), a.ctx.linkHealth.runNow(), b.ctx.linkHealth.runNow()]);
      const paths = dest.seen.filter((s) => s.path.startsWith("/each/")).map((s) => s.path);
      expect(paths).toHaveLength(300);
      expect(new Set(paths).size).toBe(300);
    }
  });
});
