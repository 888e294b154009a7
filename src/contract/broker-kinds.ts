// The click stream's broker kinds, declared once (docs/stream.md): each kind's name, its operator setting,
// URL schemes with their default ports, the dashboard's label and example, where its events go and the
// library that sends them. The config parser, the contract's union, the storage types, /metrics, the
// routes' checks, the dashboard and docs/stream.md's table (checked by test/unit/broker-kinds.test.ts) read
// this list; how each kind publishes is its file src/streams/broker-<kind>.ts, tied to its name in
// src/streams/brokers.ts. This file imports nothing, so the dashboard imports it at run time.
// Adding a kind: an entry here, src/streams/broker-<kind>.ts, its line in src/streams/brokers.ts, its row in
// docs/stream.md's table, `npm run client:generate` (the generated client's union), and a test that reads the events
// back from a real server (a consumer in test/helpers/broker-consumers.ts; ClickHouse: test/streams/clickhouse.test.ts).

export interface BrokerKindEntry {
  kind: string;
  /** The operator's setting: its URL, the broker every click goes to. */
  setting: string;
  /** Accepted URL schemes (with the colon) and the port each connects to when the URL names none. */
  schemes: Readonly<Record<string, number>>;
  /** What the dashboard and docs/stream.md call it. */
  label: string;
  /** The dashboard's example URL. */
  example: string;
  /** Where the events go (docs/stream.md's table, Markdown). */
  publishes: string;
  /** The client library that publishes (docs/stream.md's table). */
  library: string;
  /** What the URL's path must be when the kind reads it itself (ClickHouse: the database); the others' libraries read theirs. */
  path?: { pattern: RegExp; rule: string };
}

export const BROKER_KINDS = [
  {
    kind: "amqp",
    setting: "STREAM_AMQP_URL",
    schemes: { "amqp:": 5672, "amqps:": 5671 },
    label: "RabbitMQ",
    example: "amqps://user:password@mq.example.com/vhost",
    publishes:
      "topic exchange `snip.events` (durable), routing key `click.<owner_id>`, persistent messages, publisher confirms, `message_id` = the event's `id`",
    library: "amqplib",
  },
  {
    kind: "redis",
    setting: "STREAM_REDIS_URL",
    schemes: { "redis:": 6379, "rediss:": 6379 },
    label: "Redis Streams",
    example: "rediss://:password@redis.example.com:6379",
    publishes: "`XADD snip:clicks MAXLEN ~ N * id <id> owner_id <owner_id> event <json>` (N: `STREAM_REDIS_MAXLEN`)",
    library: "redis",
  },
  {
    kind: "nats",
    setting: "STREAM_NATS_URL",
    schemes: { "nats:": 4222, "tls:": 4222 },
    label: "NATS JetStream",
    example: "tls://user:password@nats.example.com:4222",
    publishes: "subject `snip.clicks.<owner_id>` in the stream `SNIP_CLICKS` (subjects `snip.clicks.>`, created if missing), `Nats-Msg-Id` = the event's `id`",
    library: "@nats-io/transport-node, @nats-io/jetstream",
  },
  {
    kind: "mqtt",
    setting: "STREAM_MQTT_URL",
    schemes: { "mqtt:": 1883, "mqtts:": 8883 },
    label: "MQTT",
    example: "mqtts://user:password@mqtt.example.com:8883",
    publishes: "topic `snip/clicks/<owner_id>`, QoS 1",
    library: "mqtt",
  },
  {
    kind: "clickhouse",
    setting: "STREAM_CLICKHOUSE_URL",
    schemes: { "http:": 8123, "https:": 8443 },
    label: "ClickHouse",
    example: "https://user:password@clickhouse.example.com:8443/snip",
    publishes:
      "one `INSERT INTO <database>.snip_events_in FORMAT JSONEachRow` per round over the HTTP interface (the URL's path names the database, `default` without one); `snip_clicks` (a ReplacingMergeTree by `id`), `snip_clicks_daily` and `snip_events` filled by materialised views, all created if missing (below)",
    library: "undici (HTTP)",
    path: { pattern: /^\/(?:[A-Za-z_][A-Za-z0-9_]{0,63}\/?)?$/, rule: "must have a database name as its path (letters, digits and _, e.g. /snip) or none" },
  },
] as const satisfies readonly BrokerKindEntry[];

export type BrokerKind = (typeof BROKER_KINDS)[number]["kind"];

/** The kinds' names, in the registry's order. */
export const BROKER_KIND_NAMES: readonly BrokerKind[] = BROKER_KINDS.map((k) => k.kind);

/** Each kind's entry by name. */
export function brokerKind(kind: BrokerKind): BrokerKindEntry {
  return BROKER_KINDS.find((k) => k.kind === kind) as BrokerKindEntry;
}

/** Streams an account may have (more: 403 limit_reached). */
export const MAX_STREAMS = 5;
