// Fresh reads across instances: a click answered by instance A shows through instance B (click_count in
// get and list, every statistic) within two seconds, on one PostgreSQL database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";

const SHARED = { SESSION_SECRET: "two-instances-fresh-secret-".padEnd(48, "x") };

describe.skipIf(!process.env.TEST_DATABASE_URL)("fresh click reads across two instances on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  let onB: ApiClient;
  beforeAll(async () => {
    a = await startTestServer({ engine: "postgres", env: { ...SHARED, CLICK_ROLLUP_MS: "600000" } });
    b = await startTestServer({ databaseUrl: a.databaseUrl, env: { ...SHARED, CLICK_ROLLUP_MS: "600000" } });
    onB = await signedInClient(b, "fresh-two@example.com", "pro");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("clicks on A show through B within 2 s, every time", async () => {
    const r = await onB.post("/api/links", { url: "https://example.com/two", alias: "fresh-two" });
    const id = r.body.link.id as string;
    let answered = 0;
    for (const n of [1, 5, 12]) {
      for (let i = 0; i < n; i++) expect(await visit(a.url, "/fresh-two", { "user-agent": i % 2 ? UA.iphone : UA.windows })).toBe(302);
      answered += n;
      const started = Date.now();
      const seen = await within(
        2000,
        async () => {
          const [get, list, stats] = await Promise.all([onB.get(`/api/links/${id}`), onB.get("/api/links"), onB.get(`/api/links/${id}/stats`)]);
          return {
            get: get.body.link.click_count as number,
            list: list.body.links.find((l: { id: string }) => l.id === id).click_count as number,
            total: stats.body.total_clicks as number,
            range: stats.body.range_clicks as number,
            devices: (stats.body.devices as Array<{ clicks: number }>).reduce((s, d) => s + d.clicks, 0),
          };
        },
        (s) => Object.values(s).every((v) => v === answered),
      );
      expect(seen).toEqual({ get: answered, list: answered, total: answered, range: answered, devices: answered });
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });
});
