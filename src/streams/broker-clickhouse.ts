// The clickhouse kind (contract/broker-kinds.ts): ClickHouse's HTTP interface through undici. At connect the
// database (the URL's path) and the tables are created if missing (clickhouseSchema, docs/stream.md); each round is
// one `INSERT … FORMAT JSONEachRow` into the Null table snip_events_in, whose materialised views keep the clicks (a
// ReplacingMergeTree by id: a round sent again collapses), their daily roll-up (uniqExact states, exact with repeats)
// and the other events. ClickHouse's 200 is the confirmation. The SQL is what Debian's clickhouse-server 18.16 and
// current releases both run: no DateTime64, Bool, LowCardinality, JSON functions or query parameters.
import { isIP } from "node:net";
import { Agent, request } from "undici";
import { brokerKind } from "../contract/broker-kinds.js";
import { pinnedLookup } from "../webhooks/send.js";
import type { LinkClickEvent } from "../webhooks/payload.js";
import { Lazy, type StreamEvent } from "./broker-client.js";

/** What is kept of an answer: an error's text, or the one line a schema check answers. */
const MAX_ANSWER = 16 * 1024;

interface ClickHouseConn {
  agent: Agent;
  /** The HTTP interface's address, without the URL's credentials. */
  endpoint: string;
  headers: Record<string, string>;
  db: string;
}

/** The database the URL's path names (the registry's path rule checked it), `default` without one. */
export function clickhouseDatabase(url: URL): string {
  return url.pathname.replace(/\//g, "") || "default";
}

/** A click's columns in snip_events_in and snip_clicks, with their types. */
const CLICK_COLUMNS: readonly (readonly [string, string])[] = [
  ["id", "String"],
  ["at", "DateTime('UTC')"],
  ["at_ms", "UInt64"],
  ["published_ms", "UInt64"],
  ["owner_id", "String"],
  ["link_id", "String"],
  ["alias", "String"],
  ["domain", "String"],
  ["url", "String"],
  ["folder_id", "String"],
  ["country", "String"],
  ["device", "String"],
  ["os", "String"],
  ["browser", "String"],
  ["referrer_host", "String"],
  ["bot", "UInt8"],
  ["destination", "String"],
  ["source", "String"],
];
const EVENT_COLUMNS = [CLICK_COLUMNS[0]!, ["type", "String"], ...CLICK_COLUMNS.slice(1), ["body", "String"]] as const;
const columnList = (cols: readonly (readonly [string, string])[]) => cols.map(([name, type]) => `  ${name} ${type}`).join(",\n");

/** The tables and views, in the order they are created (each IF NOT EXISTS); docs/stream.md shows them for `snip`. */
export function clickhouseSchema(db: string): string[] {
  const clicks = CLICK_COLUMNS.map(([name]) => name).join(", ");
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.snip_events_in (\n${columnList(EVENT_COLUMNS)}\n) ENGINE = Null`,
    `CREATE TABLE IF NOT EXISTS ${db}.snip_clicks (\n${columnList(CLICK_COLUMNS)}\n) ENGINE = ReplacingMergeTree(published_ms)
PARTITION BY toYYYYMM(at)
ORDER BY (owner_id, link_id, at, id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.snip_clicks_mv TO ${db}.snip_clicks AS
SELECT ${clicks}
FROM ${db}.snip_events_in
WHERE type = 'link_click'`,
    `CREATE TABLE IF NOT EXISTS ${db}.snip_clicks_daily (
  owner_id String,
  link_id String,
  day Date,
  country String,
  device String,
  browser String,
  bot UInt8,
  clicks AggregateFunction(uniqExact, String)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (owner_id, link_id, day, country, device, browser, bot)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.snip_clicks_daily_mv TO ${db}.snip_clicks_daily AS
SELECT owner_id, link_id, toDate(at) AS day, country, device, browser, bot, uniqExactState(id) AS clicks
FROM ${db}.snip_events_in
WHERE type = 'link_click'
GROUP BY owner_id, link_id, day, country, device, browser, bot`,
    `CREATE TABLE IF NOT EXISTS ${db}.snip_events (
  id String,
  type String,
  published_ms UInt64,
  owner_id String,
  link_id String,
  body String
) ENGINE = ReplacingMergeTree(published_ms)
ORDER BY (type, id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.snip_events_mv TO ${db}.snip_events AS
SELECT id, type, published_ms, owner_id, link_id, body
FROM ${db}.snip_events_in
WHERE type != 'link_click'`,
  ];
}

/** What a row reads of an event (docs/stream.md, The event): a click's head and fields as webhooks get them, or another event's head. */
type EventFields = Pick<LinkClickEvent, "created_at"> & { type: string; link?: LinkClickEvent["link"]; click?: LinkClickEvent["click"] };

/** ClickHouse's DateTime as text, read in the column's zone (UTC). */
const dateTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** An event as a row of snip_events_in: a click's fields in columns (null as ''), any other event whole in `body`. */
export function clickhouseRow(e: StreamEvent): string {
  const ev = JSON.parse(e.body) as EventFields;
  const published = Date.parse(ev.created_at);
  const link = ev.link;
  const click = ev.type === "link_click" ? ev.click : undefined;
  const at = click ? Date.parse(click.at) : published;
  return JSON.stringify({
    id: e.id,
    type: ev.type,
    at: dateTime(at),
    at_ms: at,
    published_ms: published,
    owner_id: e.ownerId ?? "",
    link_id: link?.id ?? "",
    alias: link?.alias ?? "",
    domain: link?.domain ?? "",
    url: link?.url ?? "",
    folder_id: link?.folder_id ?? "",
    country: click?.country ?? "",
    device: click?.device ?? "",
    os: click?.os ?? "",
    browser: click?.browser ?? "",
    referrer_host: click?.referrer_host ?? "",
    bot: click?.bot ? 1 : 0,
    destination: click?.destination ?? "",
    source: click?.source ?? "",
    body: click ? "" : e.body,
  });
}

/** One statement; resolves with the answer's text once ClickHouse answered 200 (it answers after the whole query). */
async function post(c: ClickHouseConn, sql: string): Promise<string> {
  const res = await request(c.endpoint, { method: "POST", dispatcher: c.agent, headers: c.headers, body: sql });
  let text = "";
  for await (const chunk of res.body) if (text.length < MAX_ANSWER) text += String(chunk);
  if (res.statusCode !== 200) {
    // The answer's first line names the error ("Code: 193, e.displayText() = DB::Exception: ..., e.what() = DB::Exception" in
    // old releases, "Code: 516. DB::Exception: ..." in current ones); the URL and its credentials are in no message.
    const reason = (text.trim().split("\n")[0] ?? "").replace("e.displayText() = ", "").replace(/, e\.what\(\) = .*$/, "");
    throw new Error(`ClickHouse answered ${res.statusCode}: ${reason.slice(0, 240)}`);
  }
  return text;
}

export class ClickHouseClient extends Lazy<ClickHouseConn> {
  protected async open(): Promise<ClickHouseConn> {
    const u = new URL(this.target.url);
    const port = u.port || String(brokerKind("clickhouse").schemes[u.protocol]);
    const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
    if (u.username || u.password)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
    const address = this.target.address;
    const agent = new Agent({
      connections: 1,
      keepAliveTimeout: 10_000,
      // An account's server: the checked address, whatever the name resolves to now (TLS still checks the name).
      connect: { timeout: this.opts.timeoutMs, ...(address ? { lookup: pinnedLookup(address, isIP(address) === 6 ? 6 : 4) } : {}) },
    });
    const c = { agent, endpoint: `${u.protocol}//${u.hostname}:${port}/?wait_end_of_query=1`, headers, db: clickhouseDatabase(u) };
    try {
      // The database is made only when missing: a user allowed its own database alone may not create one.
      if ((await post(c, `SELECT count() FROM system.databases WHERE name = '${c.db}'`)).trim() === "0") await post(c, `CREATE DATABASE IF NOT EXISTS ${c.db}`);
      for (const statement of clickhouseSchema(c.db)) await post(c, statement);
    } catch (err) {
      await agent.destroy().catch(() => undefined);
      throw err;
    }
    return c;
  }

  protected async send(c: ClickHouseConn, events: readonly StreamEvent[]): Promise<void> {
    if (events.length === 0) return;
    await post(c, `INSERT INTO ${c.db}.snip_events_in FORMAT JSONEachRow\n${events.map(clickhouseRow).join("\n")}\n`);
  }

  protected async shut(c: ClickHouseConn): Promise<void> {
    // Destroyed, not closed: a request still in flight (a round past STREAM_TIMEOUT_MS) is cut with it.
    await c.agent.destroy().catch(() => undefined);
  }
}
