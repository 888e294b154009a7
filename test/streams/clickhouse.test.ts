// The clickhouse kind (docs/stream.md, ClickHouse) against Debian's clickhouse-server on 127.0.0.1:8123, on both
// engines: 10,000 clicks under load with ClickHouse unreachable for 10 s in the middle all reach it, each exactly
// once after de-duplication and in order per link, and docs/stream.md's statistics queries answer what snip's own
// statistics do; audit entries land in snip_events; an account's own ClickHouse stream gets its own clicks; a round
// sent twice counts once; a refused password is the stream's error and in no log line.
// The outage is a loopback TCP proxy cut for 10 s (listener closed, connections dropped mid-insert), not a stopped
// server: the sink meets what a stopped server gives it (connections refused, an insert cut without an answer), the
// test needs no root and no service manager, and the server's own restart time does not stretch the outage.
import { Agent } from "node:http";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { createLink } from "../helpers/links.js";
import { UA, visit } from "../helpers/visit.js";
import { waitFor } from "../helpers/wait.js";
import { record } from "../helpers/audit.js";
import { clickhouse, clickhouseUp, cuttableProxy } from "../helpers/broker-consumers.js";
import { brokerClient } from "../../src/streams/brokers.js";

const up = await clickhouseUp();
const METRICS_TOKEN = "clickhouse-test-metrics-token";
const newDb = () => `snip_t_${randomBytes(5).toString("hex")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Visitors of the load: a browser and a country (TRUST_PROXY: the cf-ipcountry header is believed). */
const PROFILES = [
  { ua: UA.iphone, country: "FR" },
  { ua: UA.windows, country: "DE" },
  { ua: UA.android, country: "US" },
  { ua: UA.ipad, country: "JP" },
  { ua: UA.windows, country: "FR" },
  { ua: UA.iphone, country: "BR" },
];
const keepAlive = new Agent({ keepAlive: true, maxSockets: 8 });

/** `total` clicks over the aliases, at most `rate` a second, 8 in flight on kept-alive connections; `served` counts the 302s. */
async function paced(base: string, aliases: string[], total: number, rate: number, progress: { served: number }): Promise<void> {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < total; i = next++) {
      const due = started + (i * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      const p = PROFILES[Math.floor(i / aliases.length) % PROFILES.length]!;
      const code = await visit(base, `/${aliases[i % aliases.length]}`, { "user-agent": p.ua, "cf-ipcountry": p.country }, keepAlive);
      if (code === 302) progress.served++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** docs/stream.md's statistics queries, in their order, with `snip.` and the '<...>' values replaced. */
function docsQueries(db: string, values: Record<string, string>): string[] {
  const doc = readFileSync(new URL("../../docs/stream.md", import.meta.url), "utf8");
  const at = doc.indexOf("```sql", doc.indexOf("### Statistics queries"));
  const block = doc.slice(at + "```sql\n".length, doc.indexOf("\n```", at));
  return block
    .replace(/^--.*$/gm, "")
    .split(";")
    .map((q) => q.trim())
    .filter((q) => q !== "")
    .map((q) => q.replace(/\bsnip\./g, `${db}.`).replace(/'<(\w+)>'/g, (_, name: string) => `'${values[name] ?? `<${name}>`}'`));
}

async function setup(server: TestServer, email: string, links: number): Promise<{ client: ApiClient; ownerId: string; ids: string[]; aliases: string[] }> {
  const client = await signedInClient(server, email, "business");
  const made: { id: string; alias: string }[] = [];
  for (let i = 0; i < links; i++) made.push(await createLink(client, { url: `https://example.com/${i}` }));
  const owner = await server.ctx.storage.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
  return { client, ownerId: owner.id, ids: made.map((l) => l.id), aliases: made.map((l) => l.alias) };
}

/** /metrics' value of a series for broker="clickhouse". */
async function metric(server: TestServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{broker="clickhouse"} `));
  return line === undefined ? NaN : Number(line.split(" ")[1]);
}

const count = async (sql: string) => Number((await clickhouse<{ n: string }>(sql))[0]?.n ?? 0);
const byKey = (rows: Record<string, unknown>[], key: string) => Object.fromEntries(rows.map((r) => [String(r[key]), Number(r.clicks)]));

describe.skipIf(!up).each(ENGINES)("the ClickHouse sink (%s)", (engine) => {
  const db = newDb();
  const ownDb = newDb();
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  beforeAll(async () => {
    proxy = await cuttableProxy(8123);
    server = await startTestServer({
      engine,
      env: {
        STREAM_CLICKHOUSE_URL: `http://default:@127.0.0.1:${proxy.port}/${db}`,
        STREAM_TIMEOUT_MS: "1000",
        STREAM_POLL_MS: "50",
        CLICK_FLUSH_MS: "50",
        TRUST_PROXY: "true",
        WEBHOOK_ALLOW_PRIVATE: "true",
        METRICS_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    for (const d of [db, ownDb]) await clickhouse(`DROP DATABASE IF EXISTS ${d}`).catch(() => undefined);
  });

  it("creates its database and tables, and an audit entry lands in snip_events whole", async () => {
    const at = Date.now();
    await record(server, { id: null, email: "ops@example.com" }, at, { action: "team.role", targetId: `t-${db}`, summary: "made viewer" });
    const rows = await waitFor(
      async () => {
        const r = await clickhouse<{ id: string; body: string }>(`SELECT id, body FROM ${db}.snip_events FINAL WHERE type = 'audit'`).catch(() => []);
        return r.find((e) => (JSON.parse(e.body) as { audit: { target_id: string } }).audit.target_id === `t-${db}`) ?? null;
      },
      { timeoutMs: 20_000, what: "the audit entry in snip_events" },
    );
    const event = JSON.parse(rows.body) as { id: string; type: string; audit: { action: string; at: string } };
    expect([event.id, event.type, event.audit.action, event.audit.at]).toEqual([rows.id, "audit", "team.role", new Date(at).toISOString()]);
    const tables = await clickhouse<{ name: string; engine: string }>(
      `SELECT name, engine FROM system.tables WHERE database = '${db}' AND name LIKE 'snip_%' ORDER BY name`,
    );
    expect(tables.map((t) => `${t.name} ${t.engine}`)).toEqual([
      "snip_clicks ReplacingMergeTree",
      "snip_clicks_daily AggregatingMergeTree",
      "snip_clicks_daily_mv MaterializedView",
      "snip_clicks_mv MaterializedView",
      "snip_events ReplacingMergeTree",
      "snip_events_in Null",
      "snip_events_mv MaterializedView",
    ]);
  });

  it("10,000 clicks, ClickHouse away for 10 s in the middle: each there once, in order per link; the docs' queries answer snip's statistics", async () => {
    const { client, ownerId, ids, aliases } = await setup(server, `ch-load-${engine}@example.com`, 5);
    // Every row inserted, repeats kept (a MergeTree, never collapsed): what the sink sent, beside what the tables keep.
    // (The sink connects, making its tables, at its first event: an audit entry.)
    await record(server, { id: null, email: "ops@example.com" }, Date.now(), { action: "team.role", targetId: "t-load", summary: "s" });
    await waitFor(async () => (await count(`SELECT count() AS n FROM system.tables WHERE database = '${db}' AND name = 'snip_events_in'`)) === 1 || null, {
      timeoutMs: 20_000,
      what: "the sink's tables",
    });
    await clickhouse(`CREATE MATERIALIZED VIEW ${db}.test_inserted ENGINE = MergeTree ORDER BY id AS SELECT id, owner_id FROM ${db}.snip_events_in`);
    const failuresBefore = (await metric(server, "snip_stream_failures_total")) || 0;
    const progress = { served: 0 };
    const load = paced(server.url, aliases, 10_000, 600, progress);
    let inOutage = 0;
    let failedInOutage = 0;
    try {
      await waitFor(() => progress.served >= 2_500 || null, { timeoutMs: 60_000, what: "2,500 clicks served" });
      await proxy.cut();
      const before = progress.served;
      await sleep(10_000);
      inOutage = progress.served - before;
      failedInOutage = (await metric(server, "snip_stream_failures_total")) - failuresBefore;
    } finally {
      await proxy.restore();
      await load;
    }
    expect(progress.served).toBe(10_000);
    // Under load while ClickHouse was away, and the sink really failed meanwhile.
    expect(inOutage).toBeGreaterThan(1_000);
    expect(failedInOutage).toBeGreaterThan(0);

    const owned = `${db}.snip_clicks WHERE owner_id = '${ownerId}'`;
    await waitFor(async () => (await count(`SELECT uniqExact(id) AS n FROM ${owned}`)) >= 10_000 || null, {
      timeoutMs: 60_000,
      what: "10,000 ids in ClickHouse",
    });
    // Exactly once after de-duplication, though more rows were inserted: the round whose answer the cut dropped went again.
    expect(await count(`SELECT count() AS n FROM ${db}.snip_clicks FINAL WHERE owner_id = '${ownerId}'`)).toBe(10_000);
    expect(await count(`SELECT uniqExact(id) AS n FROM ${owned}`)).toBe(10_000);
    const inserted = await count(`SELECT count() AS n FROM ${db}.test_inserted WHERE owner_id = '${ownerId}'`);
    console.info(
      `ClickHouse sink (${engine}): ${inOutage} clicks during the outage, ${failedInOutage} rounds failed, ${inserted - 10_000} events inserted twice`,
    );
    expect(inserted).toBeGreaterThan(10_000);

    // snip's own statistics (30 days to today, UTC) against docs/stream.md's queries.
    await server.ctx.clicks.flush();
    const stats = new Map<
      string,
      {
        from: string;
        to: string;
        total_clicks: number;
        daily: { date: string; clicks: number }[];
        countries: { country: string; clicks: number }[];
        devices: { device: string; clicks: number }[];
      }
    >();
    for (const id of ids) {
      const r = await client.get(`/api/links/${id}/stats`);
      expect(r.status, r.text).toBe(200);
      stats.set(id, r.body);
    }
    const { from, to } = stats.get(ids[0]!)!;
    const queries = (linkId = "") => docsQueries(db, { owner_id: ownerId, link_id: linkId, from, to });
    expect(queries()).toHaveLength(5);
    const [daily, , , totals] = queries();
    const dailyRows = await clickhouse<{ link_id: string; day: string; clicks: string }>(daily!);
    const totalRows = await clickhouse(totals!);
    expect(byKey(totalRows, "link_id")).toEqual(Object.fromEntries(ids.map((id) => [id, stats.get(id)!.total_clicks])));
    expect(ids.reduce((n, id) => n + stats.get(id)!.total_clicks, 0)).toBe(10_000);
    for (const id of ids) {
      const s = stats.get(id)!;
      expect(
        byKey(
          dailyRows.filter((r) => r.link_id === id),
          "day",
        ),
        id,
      ).toEqual(Object.fromEntries(s.daily.filter((d) => d.clicks > 0).map((d) => [d.date, d.clicks])));
      const [, countries, devices, , raw] = queries(id);
      expect(byKey(await clickhouse(countries!), "country"), id).toEqual(Object.fromEntries(s.countries.map((c) => [c.country, c.clicks])));
      expect(byKey(await clickhouse(devices!), "device"), id).toEqual(Object.fromEntries(s.devices.map((d) => [d.device, d.clicks])));
      // Each click once, and in order per link: no click was sent before an earlier click of its link.
      const clicks = await clickhouse<{ id: string; at_ms: string; published_ms: string }>(raw!);
      expect(clicks.length, id).toBe(s.total_clicks);
      expect(new Set(clicks.map((c) => c.id)).size, id).toBe(s.total_clicks);
      const sent = clicks.map((c) => Number(c.published_ms));
      expect(sent, id).toEqual([...sent].sort((a, b) => a - b));
    }

    // Confirmed is delivered: /metrics' published events are the distinct events in ClickHouse, nothing waits.
    await waitFor(async () => (await metric(server, "snip_stream_backlog")) === 0 || null, { what: "an empty backlog" });
    const distinct = (await count(`SELECT uniqExact(id) AS n FROM ${db}.snip_clicks`)) + (await count(`SELECT uniqExact(id) AS n FROM ${db}.snip_events`));
    expect(await metric(server, "snip_stream_published_total")).toBe(distinct);
  }, 180_000);

  it("an account's own ClickHouse stream gets its links' clicks, and no one else's", async () => {
    const { client, ids, aliases } = await setup(server, `ch-own-${engine}@example.com`, 2);
    const other = await setup(server, `ch-other-${engine}@example.com`, 1);
    const made = await client.post("/api/streams", { name: "Warehouse", kind: "clickhouse", url: `http://default:@localhost:8123/${ownDb}` });
    expect(made.status, made.text).toBe(201);
    // An empty password is no password: the URL is shown as given, without the colon.
    expect(made.body.stream).toMatchObject({ kind: "clickhouse", url: `http://default@localhost:8123/${ownDb}`, active: true });
    for (let i = 0; i < 30; i++) expect(await visit(server.url, `/${[...aliases, ...other.aliases][i % 3]}`, { "user-agent": UA.windows })).toBe(302);
    await waitFor(async () => (await count(`SELECT uniqExact(id) AS n FROM ${ownDb}.snip_clicks`).catch(() => 0)) >= 20 || null, {
      timeoutMs: 20_000,
      what: "the account's 20 clicks in its own database",
    });
    const links = await clickhouse<{ link_id: string; clicks: string }>(
      `SELECT link_id, uniqExact(id) AS clicks FROM ${ownDb}.snip_clicks GROUP BY link_id ORDER BY link_id`,
    );
    expect(byKey(links, "link_id")).toEqual(Object.fromEntries(ids.map((id) => [id, 10])));
    const status = (await client.get("/api/streams")).body.streams[0].status;
    expect([status.failed, status.last_error]).toEqual([0, null]);
  }, 60_000);
});

describe.skipIf(!up)("the ClickHouse client", () => {
  const db = newDb();
  afterAll(() => clickhouse(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined));

  it("a round sent twice counts once: in the clicks (FINAL, and merged), the daily roll-up and the other events", async () => {
    const opts = { timeoutMs: 5_000, redisMaxLen: 1_000, clientId: "t" };
    const link = (id: string) => ({ id, alias: id.toLowerCase(), domain: null, short_url: `http://s/${id}`, url: "https://example.com/", folder_id: null });
    const click = {
      country: "FR",
      device: "mobile",
      os: "iOS",
      browser: "Mobile Safari",
      referrer_host: null,
      bot: false,
      destination: "default",
      source: "link",
    };
    const round = (createdAt: string) =>
      [
        { id: "p.1", type: "link_click", link: link("L1"), click: { ...click, at: "2026-03-01T23:59:59.900Z" } },
        { id: "p.2", type: "link_click", link: link("L1"), click: { ...click, at: "2026-03-02T00:00:00.100Z" } },
        { id: "p.3", type: "link_click", link: link("L2"), click: { ...click, at: "2026-03-02T10:00:00.000Z", country: null } },
        { id: "lead.created:X1", type: "lead.created", link: link("L1"), lead: { id: "X1", event_name: "Sign up" } },
        { id: "audit:9", type: "audit", audit: { id: "9", action: "user.suspend" } },
      ].map((e) => ({ id: e.id, ownerId: "O1", body: JSON.stringify({ schema: 1, version: 1, test: false, owner_id: "O1", created_at: createdAt, ...e }) }));
    const first = brokerClient("clickhouse", { url: `http://127.0.0.1:8123/${db}` }, opts);
    await first.publish(round("2026-03-02T10:00:01.000Z"));
    await first.close();
    // A new connection finds the tables there; the round sent again, as after a confirmation that never came.
    const again = round("2026-03-02T10:00:05.000Z");
    const second = brokerClient("clickhouse", { url: `http://default:@127.0.0.1:8123/${db}` }, opts);
    await second.publish(again);
    await second.close();

    const final = await clickhouse<{ id: string; link_id: string; country: string; day: string; published_ms: string }>(
      `SELECT id, link_id, country, toString(toDate(at)) AS day, published_ms FROM ${db}.snip_clicks FINAL ORDER BY id`,
    );
    const resent = String(Date.parse("2026-03-02T10:00:05.000Z"));
    expect(final).toEqual([
      { id: "p.1", link_id: "L1", country: "FR", day: "2026-03-01", published_ms: resent },
      { id: "p.2", link_id: "L1", country: "FR", day: "2026-03-02", published_ms: resent },
      { id: "p.3", link_id: "L2", country: "", day: "2026-03-02", published_ms: resent },
    ]);
    await clickhouse(`OPTIMIZE TABLE ${db}.snip_clicks FINAL`);
    expect(await count(`SELECT count() AS n FROM ${db}.snip_clicks`)).toBe(3);
    const daily = await clickhouse(
      `SELECT concat(link_id, ' ', toString(day), ' ', country) AS k, uniqExactMerge(clicks) AS clicks FROM ${db}.snip_clicks_daily GROUP BY k ORDER BY k`,
    );
    expect(byKey(daily, "k")).toEqual({ "L1 2026-03-01 FR": 1, "L1 2026-03-02 FR": 1, "L2 2026-03-02 ": 1 });
    const events = await clickhouse<{ id: string; type: string; link_id: string; body: string }>(
      `SELECT id, type, link_id, body FROM ${db}.snip_events FINAL ORDER BY id`,
    );
    expect(events).toEqual([
      { id: "audit:9", type: "audit", link_id: "", body: again[4]!.body },
      { id: "lead.created:X1", type: "lead.created", link_id: "L1", body: again[3]!.body },
    ]);
  });
});

describe.skipIf(!up)("a ClickHouse that refuses the password", () => {
  const db = newDb();
  const lines: string[] = [];
  let server: TestServer;
  beforeAll(async () => {
    const log = pino({ level: "info" }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    server = await startTestServer({
      engine: "sqlite",
      log,
      env: { STREAM_CLICKHOUSE_URL: `http://default:wr0ng-s3cret@127.0.0.1:8123/${db}`, STREAM_TIMEOUT_MS: "1000", STREAM_POLL_MS: "50", CLICK_FLUSH_MS: "50" },
    });
  });
  afterAll(() => server?.close());

  it("keeps the events, says why in the sink's status, and never writes the password", async () => {
    const { aliases } = await setup(server, "ch-refused@example.com", 1);
    for (let i = 0; i < 3; i++) expect(await visit(server.url, `/${aliases[0]}`, { "user-agent": UA.windows })).toBe(302);
    const sink = await waitFor(
      async () => {
        const row = await server.ctx.storage.db
          .selectFrom("stream_sinks")
          .select(["failed", "last_error"])
          .where("id", "=", "env:clickhouse")
          .executeTakeFirstOrThrow();
        return Number(row.failed) >= 2 ? row : null;
      },
      { timeoutMs: 20_000, what: "two failed rounds" },
    );
    expect(sink.last_error).toMatch(/^ClickHouse answered \d{3}: Code: \d+[,.] DB::Exception: .*password/);
    const kept = await server.ctx.storage.db
      .selectFrom("stream_outbox")
      .select((eb) => eb.fn.sum<number>("n").as("n"))
      .where("sink_id", "=", "env:clickhouse")
      .executeTakeFirstOrThrow();
    expect(Number(kept.n)).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes("broker did not confirm")).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.includes("wr0ng-s3cret"))).toEqual([]);
    expect(await count(`SELECT count() AS n FROM system.databases WHERE name = '${db}'`)).toBe(0);
  });
});
