// Prometheus metrics (docs/operations.md, Metrics) through prom-client. The features keep plain counters
// (one increment on their paths) that are read at scrape time; only the redirect latency histogram and
// the rate-limit refusals are observed here, and only when metrics are on (METRICS_TOKEN or METRICS_PORT).
import { type Server, createServer } from "node:http";
import client from "prom-client";
import type { AppContext } from "../context.js";
import { safeEqual, sha256Hex } from "../shared/ids.js";
import { FixedHistogram, type HistogramSeries } from "./fixed-histogram.js";
import type { SinkStats } from "../streams/publisher.js";
import { BROKER_KIND_NAMES } from "../contract/broker-kinds.js";

/** Redirect latency buckets (seconds): a cached redirect takes tens of microseconds, a database lookup milliseconds. */
const LATENCY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

type Labels = Record<string, string>;

/** The services whose counters and backlogs the metrics read at scrape time. */
export type MetricsDeps = Pick<
  AppContext,
  "clickDeliveries" | "clicks" | "clock" | "domains" | "linkHealth" | "mailer" | "redirects" | "storage" | "streamPublisher"
>;

export class Metrics {
  readonly registry = new client.Registry();
  private readonly outcomes = new Map<string, number>();
  private readonly refusals = new Map<string, number>();
  /** The fast path's two outcomes, plain fields: one addition per answer. */
  private fastRedirects = 0;
  private fastForms = 0;
  /** The histogram's two series: an observation is a bucket search and three additions. */
  private readonly latency: Record<"fast" | "route", HistogramSeries>;

  constructor(ctx: MetricsDeps) {
    const r = this.registry;
    client.collectDefaultMetrics({ register: r });
    const help = "Time to answer a short link, by path (fast: cached, before the router; route: the router's redirect route)";
    const latency = new FixedHistogram("snip_redirect_duration_seconds", help, "path", LATENCY_BUCKETS, ["fast", "route"] as const, r);
    this.latency = { fast: latency.of("fast"), route: latency.of("route") };
    counter(
      r,
      "snip_redirects_total",
      "Short-link answers by outcome (redirect, password form, not_found, expired, limit_reached, disabled, blocked, throttled...)",
      ["outcome"],
      () => this.outcomeEntries(),
    );
    counter(r, "snip_rate_limited_total", "Requests refused with 429 by a rate limit, by route", ["route"], () => entries(this.refusals, "route"));

    registerClickMetrics(r, ctx);
    registerHealthMetrics(r, ctx);
    registerDeliveryMetrics(r, ctx);
    registerPoolMetrics(r, ctx);
  }

  /** A short link answered by the router: its outcome and how long it took. */
  redirect(outcome: string, path: "fast" | "route", seconds: number): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    this.latency[path].observe(seconds);
  }

  /** The fast path's answer (a 302, or the password form): counters and the histogram, no map or label. */
  fast(form: boolean, seconds: number): void {
    if (form) this.fastForms++;
    else this.fastRedirects++;
    this.latency.fast.observe(seconds);
  }

  private outcomeEntries(): [Labels, number][] {
    const all = new Map(this.outcomes);
    all.set("redirect", (all.get("redirect") ?? 0) + this.fastRedirects);
    all.set("password", (all.get("password") ?? 0) + this.fastForms);
    for (const k of ["redirect", "password"]) if (all.get(k) === 0) all.delete(k);
    return entries(all, "outcome");
  }

  refused(route: string): void {
    this.refusals.set(route, (this.refusals.get(route) ?? 0) + 1);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** METRICS_PORT: /metrics without a token, on the loopback interface only. */
  listen(port: number): Promise<Server> {
    const server = createServer((req, res) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
        return;
      }
      this.text().then(
        (body) => res.writeHead(200, { "content-type": this.contentType, "cache-control": "no-store" }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve(server));
    });
  }
}

/** `Authorization: Bearer <token>` compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  // Digests of equal length: the comparison tells nothing of the token's length either.
  return safeEqual(sha256Hex(m[1]!), sha256Hex(token));
}

function entries(map: Map<string, number>, label: string): [Labels, number][] {
  return [...map].map(([value, n]) => [{ [label]: value }, n]);
}

/** A counter whose values the features keep: set from `read` at each scrape. */
function counter(registry: client.Registry, name: string, help: string, labelNames: string[], read: () => [Labels, number][]): void {
  new client.Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, n] of read()) this.inc(labels, n);
    },
  });
}

function gauge(registry: client.Registry, name: string, help: string, labelNames: string[], read: () => [Labels, number][]): void {
  new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const [labels, n] of read()) this.set(labels, n);
    },
  });
}

/** Link health's check queue (docs/health.md): due and broken destinations as of the last pass, checks by result. */
function registerHealthMetrics(r: client.Registry, ctx: MetricsDeps): void {
  const health = ctx.linkHealth;
  gauge(r, "snip_link_checks_due", "Link destinations due for a check (as of the last pass)", [], () => [[{}, health.lastFigures.due]]);
  gauge(r, "snip_link_destinations_broken", "Link destinations broken (three failed checks in a row)", [], () => [[{}, health.lastFigures.broken]]);
  counter(r, "snip_link_checks_total", "Link destination checks done by this instance, by result", ["result"], () => entries(health.done, "result"));
}

/** The clicks' way to the database (recorded, written, dropped, pending) and the redirect cache. */
function registerClickMetrics(r: client.Registry, ctx: MetricsDeps): void {
  const clicks = ctx.clicks;
  counter(r, "snip_clicks_recorded_total", "Clicks answered and buffered", [], () => [[{}, clicks.counts.recorded]]);
  counter(r, "snip_clicks_written_total", "Clicks written to the database", [], () => [[{}, clicks.counts.written]]);
  counter(
    r,
    "snip_clicks_dropped_total",
    "Clicks answered and dropped: memory full (CLICK_MEMORY_MAX) and the click journal off or unable to hold them (its disk full)",
    [],
    () => [[{}, clicks.counts.dropped]],
  );
  gauge(r, "snip_clicks_pending", "Clicks answered and not written yet (buffered, journaled)", [], () => [[{}, clicks.backlog().pending]]);
  gauge(r, "snip_clicks_journal_only", "Clicks answered and not written yet that only the click journal holds (past CLICK_MEMORY_MAX)", [], () => [
    [{}, clicks.backlog().spilled],
  ]);
  gauge(r, "snip_click_journal_bytes", "Bytes of click journal segments whose clicks are not written yet", [], () => [[{}, clicks.backlog().journalBytes]]);
  gauge(r, "snip_clicks_oldest_pending_seconds", "Age of the oldest click not written yet (the writer's lag), 0 when none", [], () => {
    const at = clicks.backlog().oldestAt;
    return [[{}, at === null ? 0 : Math.max(0, (ctx.clock.now() - at) / 1000)]];
  });

  const cache = ctx.redirects.cache;
  gauge(r, "snip_link_cache_entries", "Links (and known misses) held in this instance's redirect cache", [], () => [[{}, cache.size]]);
  counter(r, "snip_link_cache_lookups_total", "Redirect cache lookups by result", ["result"], () => [
    [{ result: "hit" }, cache.hits],
    [{ result: "miss" }, cache.misses],
  ]);
}

/** What leaves the instance: webhook deliveries, the click stream per broker, custom-domain DNS checks, emails. */
function registerDeliveryMetrics(r: client.Registry, ctx: MetricsDeps): void {
  const hooks = ctx.clickDeliveries;
  gauge(r, "snip_webhook_queue_depth", "Webhook events waiting or in flight in this instance", [], () => [[{}, hooks.queueState().queued]]);
  counter(
    r,
    "snip_webhook_deliveries_total",
    "Webhook click events by result: ok (2xx), failed (any other answer or none), dropped (queue full)",
    ["result"],
    () => [
      [{ result: "ok" }, hooks.delivered.ok],
      [{ result: "failed" }, hooks.delivered.failed],
      [{ result: "dropped" }, hooks.queueState().dropped],
    ],
  );
  const stream = ctx.streamPublisher;
  const perBroker = (f: (s: SinkStats) => number) => () => [...stream.byBroker()].map(([broker, s]): [Labels, number] => [{ broker }, f(s)]);
  gauge(
    r,
    "snip_stream_backlog",
    `Click-stream events waiting in the outbox, by broker (${BROKER_KIND_NAMES.join(", ")}; account: accounts' own)`,
    ["broker"],
    perBroker((s) => s.backlog),
  );
  gauge(
    r,
    "snip_stream_lag_seconds",
    "Age of the oldest click-stream event waiting, by broker; 0 when none",
    ["broker"],
    perBroker((s) => (s.oldestAt === null ? 0 : Math.max(0, (ctx.clock.now() - s.oldestAt) / 1000))),
  );
  counter(
    r,
    "snip_stream_published_total",
    "Click-stream events this instance published and the broker confirmed, by broker",
    ["broker"],
    perBroker((s) => s.published),
  );
  counter(
    r,
    "snip_stream_failures_total",
    "Click-stream publish rounds a broker did not confirm (kept and retried), by broker",
    ["broker"],
    perBroker((s) => s.failures),
  );
  counter(r, "snip_dns_checks_total", "Custom-domain DNS checks by result", ["result"], () =>
    Object.entries(ctx.domains.checks).map(([result, n]) => [{ result }, n]),
  );
  counter(r, "snip_email_attempts_total", "Email transport attempts by result: sent, queued (for a retry), failed (given up)", ["result"], () =>
    Object.entries(ctx.mailer.outcomes).map(([result, n]) => [{ result }, n]),
  );
}

/** PostgreSQL's connection pool, when there is one. */
function registerPoolMetrics(r: client.Registry, ctx: MetricsDeps): void {
  const pool = ctx.storage.poolStats;
  if (pool) {
    gauge(r, "snip_db_pool_connections", "PostgreSQL pool connections by state", ["state"], () => {
      const s = pool();
      return [
        [{ state: "idle" }, s.idle],
        [{ state: "busy" }, s.total - s.idle],
      ];
    });
    gauge(r, "snip_db_pool_waiting", "Queries waiting for a PostgreSQL pool connection", [], () => [[{}, pool().waiting]]);
    gauge(r, "snip_db_pool_max", "Most connections the PostgreSQL pool opens", [], () => [[{}, pool().max]]);
  }
}
