// GET /metrics (docs/operations.md, Metrics): the token and loopback rules, and every metric family
// moving under real traffic (redirects on both paths, the cache, clicks, a webhook delivery to a real
// HTTPS receiver, a DNS check against a real DNS server, an email, a rate limit, the pool on PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { freePort, startTestServer, type TestServer } from "../helpers/server.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { TestDns } from "../helpers/dns.js";
import { type Receiver, type TestCa, makeTestCa, startReceiver } from "../helpers/webhook-receivers.js";
import { waitFor } from "../helpers/wait.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const TOKEN = "metrics-token-0123456789";

/** The value of one sample (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe.each(ENGINES)("metrics on %s", (engine) => {
  let server: TestServer;
  let dns: TestDns;
  let rx: Receiver;
  let ca: TestCa;
  let port: number;
  const scrape = async () => {
    const r = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    ca = makeTestCa();
    rx = await startReceiver(ca);
    dns = await TestDns.start();
    port = await freePort();
    server = await startTestServer({
      engine,
      env: {
        METRICS_TOKEN: TOKEN,
        METRICS_PORT: String(port),
        WEBHOOK_ALLOW_PRIVATE: "true",
        DNS_SERVERS: dns.address,
        CLICK_FLUSH_MS: "50",
        NOT_FOUND_PER_MINUTE: "5",
      },
      webhooks: { ca: ca.trust },
    });
  });
  afterAll(async () => {
    await server?.close();
    await dns?.close();
    await rx?.close();
  });

  it("needs the token on the main port (401, constant answer), none on the loopback METRICS_PORT", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const r = await fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect([authorization, r.status]).toEqual([authorization, 401]);
      expect((await r.json()).code).toBe("unauthenticated");
    }
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await ok.text()).toContain("# TYPE snip_redirects_total counter");
    const local = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it("without METRICS_TOKEN or METRICS_PORT nothing is served: /metrics is a short link's address like any other", async () => {
    const plain = await startTestServer({ engine: "sqlite" });
    try {
      const r = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it("every family moves under real traffic", async () => {
    const before = await scrape();
    const owner = await signedInClient(server, `metrics-${engine}@example.com`, "business");
    const hook = await owner.post("/api/webhooks", { name: "M", url: rx.url("/metrics-hook") });
    expect(hook.status).toBe(201);
    expect((await owner.post("/api/links", { url: "https://example.com/m", alias: "metric-link" })).status).toBe(201);
    expect((await owner.post("/api/links", { url: "https://example.com/p", alias: "metric-pass", password: "letmein-123" })).status).toBe(201);

    // First visit through the router (a cache miss), the next ones on the fast path (hits).
    for (let i = 0; i < 4; i++) expect((await fetch(`${server.url}/metric-link`, { redirect: "manual" })).status).toBe(302);
    expect((await fetch(`${server.url}/metric-pass`)).status).toBe(200);
    expect((await fetch(`${server.url}/no-such-link`)).status).toBe(404);
    // Past NOT_FOUND_PER_MINUTE: 429 from the redirect route.
    for (let i = 0; i < 6; i++) await fetch(`${server.url}/missing-${i}`);
    // A domain check against the test DNS server (records missing), and an email (sign-up: outbox).
    const d = await owner.post("/api/domains", { hostname: `m-${engine}.example.net` });
    expect(d.status).toBe(201);
    expect((await owner.post(`/api/domains/${d.body.domain.id}/verify`)).status).toBe(200);
    const visitor = new ApiClient(server.url);
    expect((await visitor.signup(`new-${engine}@example.com`)).status).toBe(201);

    await waitFor(() => rx.requests.some((r) => r.url === "/metrics-hook"), { what: "the webhook delivery" });
    const after = await waitFor(
      async () => {
        const t = await scrape();
        return sample(t, "snip_clicks_written_total") - sample(before, "snip_clicks_written_total") >= 4 &&
          sample(t, "snip_webhook_deliveries_total", 'result="ok"') >= 1
          ? t
          : null;
      },
      { what: "clicks written and the delivery counted" },
    );

    const delta = (name: string, labels = "") => sample(after, name, labels) - sample(before, name, labels);
    expect(delta("snip_redirects_total", 'outcome="redirect"')).toBe(4);
    expect(delta("snip_redirects_total", 'outcome="password"')).toBe(1);
    expect(delta("snip_redirects_total", 'outcome="not_found"')).toBeGreaterThanOrEqual(5);
    expect(delta("snip_redirects_total", 'outcome="not_found_burst"')).toBeGreaterThanOrEqual(1);
    expect(delta("snip_redirect_duration_seconds_count", 'path="fast"')).toBeGreaterThanOrEqual(3);
    expect(delta("snip_redirect_duration_seconds_count", 'path="route"')).toBeGreaterThanOrEqual(2);
    expect(delta("snip_link_cache_lookups_total", 'result="hit"')).toBeGreaterThanOrEqual(3);
    expect(delta("snip_link_cache_lookups_total", 'result="miss"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, "snip_link_cache_entries")).toBeGreaterThanOrEqual(1);
    expect(delta("snip_clicks_recorded_total")).toBe(4);
    expect(delta("snip_clicks_written_total")).toBe(4);
    expect(sample(after, "snip_clicks_pending")).toBe(0);
    expect(delta("snip_webhook_deliveries_total", 'result="ok"')).toBeGreaterThanOrEqual(1);
    expect(delta("snip_dns_checks_total", 'result="records_wrong"')).toBe(1);
    expect(delta("snip_email_attempts_total", 'result="sent"')).toBe(1);
    expect(delta("snip_rate_limited_total", 'route="/:alias"')).toBeGreaterThanOrEqual(1);
    if (engine === "postgres") {
      expect(sample(after, "snip_db_pool_max")).toBe(10);
      expect(sample(after, "snip_db_pool_connections", 'state="idle"') + sample(after, "snip_db_pool_connections", 'state="busy"')).toBeGreaterThanOrEqual(1);
    } else expect(after).not.toContain("snip_db_pool");
    expect(sample(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("the Grafana dashboard in docs/ imports (panels with Prometheus targets) and queries only metrics this server exposes", async () => {
    const dash = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "docs", "grafana-dashboard.json"), "utf8"));
    expect(dash.uid).toBe("snip-overview");
    const exprs: string[] = dash.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(10);
    const exposed = new Set(
      (await scrape())
        .split("\n")
        .filter((l) => l.startsWith("# TYPE "))
        .map((l) => l.split(" ")[2]),
    );
    const named = new Set(exprs.flatMap((e) => e.match(/\b(?:snip|process|nodejs)_[a-z0-9_]+/g) ?? []).map((n) => n.replace(/_(bucket|count|sum)$/, "")));
    const missing = [...named].filter((n) => !exposed.has(n) && !(engine === "sqlite" && n.startsWith("snip_db_pool")));
    expect(missing).toEqual([]);
  });
});
