// Consumers of the click stream on the real brokers of 127.0.0.1 (docs/stream.md), for tests: each collects
// the events it receives (duplicates kept, so a test can count them), the broker start/stop commands, and
// ClickHouse's HTTP interface (the clickhouse kind's events are read back with SQL).
import { execSync } from "node:child_process";
import { type Socket, connect as netConnect, createServer } from "node:net";
import amqp from "amqplib";
import { createClient } from "redis";
import mqtt from "mqtt";
import { connect as natsConnect } from "@nats-io/transport-node";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";

export const BROKER_URLS = {
  amqp: "amqp://guest:guest@127.0.0.1:5672",
  redis: "redis://127.0.0.1:6379",
  nats: "nats://127.0.0.1:4222",
  mqtt: "mqtt://127.0.0.1:1883",
} as const;
export type Kind = keyof typeof BROKER_URLS;

/** A server's environment with the operator's sinks on all four brokers, publishing quickly. */
export const ALL_BROKERS_ENV = {
  STREAM_AMQP_URL: BROKER_URLS.amqp,
  STREAM_REDIS_URL: BROKER_URLS.redis,
  STREAM_NATS_URL: BROKER_URLS.nats,
  STREAM_MQTT_URL: BROKER_URLS.mqtt,
  STREAM_TIMEOUT_MS: "1000",
  STREAM_POLL_MS: "50",
  CLICK_FLUSH_MS: "50",
};

/** Whether something answers on the port of 127.0.0.1 within half a second. */
function open(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = netConnect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
    s.setTimeout(500, () => (s.destroy(), resolve(false)));
    s.on("error", () => resolve(false));
  });
}

/**
 * The brokers that listen on 127.0.0.1. Tests that need one are skipped without it (a laptop), and the run's
 * last lines say so; CI sets SNIP_REQUIRE_BROKERS, which turns a missing broker into a failure.
 */
export async function brokersUp(): Promise<Record<Kind, boolean>> {
  const kinds = Object.keys(BROKER_URLS) as Kind[];
  const up = await Promise.all(kinds.map((k) => open(Number(new URL(BROKER_URLS[k]).port))));
  const result = Object.fromEntries(kinds.map((k, i) => [k, up[i]])) as Record<Kind, boolean>;
  const missing = kinds.filter((k) => !result[k]);
  if (missing.length > 0 && process.env.SNIP_REQUIRE_BROKERS)
    throw new Error(`SNIP_REQUIRE_BROKERS is set but nothing listens for ${missing.join(", ")} on 127.0.0.1`);
  if (missing.length > 0) console.warn(`click-stream tests SKIPPED where they need ${missing.join(", ")}: nothing listens on 127.0.0.1 (.ci/run starts them)`);
  return result;
}

/** ClickHouse's HTTP interface on 127.0.0.1 (Debian's clickhouse-server, .ci/run starts it). */
export const CLICKHOUSE_HTTP = "http://127.0.0.1:8123";

/**
 * Whether ClickHouse answers /ping. Without it the ClickHouse tests are skipped, saying why (a laptop); with
 * SNIP_REQUIRE_BROKERS (CI) a missing ClickHouse is a failure.
 */
export async function clickhouseUp(): Promise<boolean> {
  const ok = await fetch(`${CLICKHOUSE_HTTP}/ping`, { signal: AbortSignal.timeout(1_000) }).then(
    async (r) => (await r.text()).trim() === "Ok.",
    () => false,
  );
  if (!ok && process.env.SNIP_REQUIRE_BROKERS) throw new Error(`SNIP_REQUIRE_BROKERS is set but ClickHouse does not answer ${CLICKHOUSE_HTTP}/ping`);
  if (!ok) console.warn(`ClickHouse sink tests SKIPPED: nothing answers ${CLICKHOUSE_HTTP}/ping (.ci/run installs and starts clickhouse-server)`);
  return ok;
}

/** One statement on ClickHouse; a SELECT's rows (FORMAT JSONEachRow is added), others' none. */
export async function clickhouse<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  const select = /^\s*(SELECT|WITH)\b/i.test(sql);
  const res = await fetch(`${CLICKHOUSE_HTTP}/?wait_end_of_query=1`, { method: "POST", body: select ? `${sql}\nFORMAT JSONEachRow` : sql });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ClickHouse answered ${res.status}: ${text}\n${sql}`);
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

/**
 * A loopback TCP proxy to a port that can be cut and restored. cut() first lets the next request through and drops its
 * answer (what a server stopped right after writing leaves: the sender must send it again), then closes the listener
 * and drops every connection (connections refused until restore()).
 */
export async function cuttableProxy(targetPort: number): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let swallowing = false;
  let passed: (() => void) | null = null;
  const server = createServer((socket) => {
    const upstream = netConnect(targetPort, "127.0.0.1");
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
    socket.on("data", (d: Buffer) => {
      upstream.write(d);
      if (swallowing) passed?.();
    });
    upstream.on("data", (d: Buffer) => void (swallowing || socket.write(d)));
    socket.on("end", () => upstream.end());
    upstream.on("end", () => socket.end());
  });
  const listen = (port: number) => new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  const drop = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    port,
    async cut() {
      swallowing = true;
      await Promise.race([new Promise<void>((r) => (passed = r)), new Promise((r) => setTimeout(r, 2_000))]);
      // Time for the server to finish that request before its connection goes.
      await new Promise((r) => setTimeout(r, 300));
      await drop();
    },
    async restore() {
      swallowing = false;
      passed = null;
      await listen(port);
    },
    close: drop,
  };
}

export interface StreamEventSeen {
  schema: number;
  id: string;
  owner_id: string | null;
  link: { id: string; alias: string };
  click: { at: string; source: string };
}

export interface Consumer {
  /** Every event received so far, duplicates included. */
  events(): Promise<StreamEventSeen[]>;
  close(): Promise<void>;
}

export async function amqpConsumer(): Promise<Consumer> {
  const conn = await amqp.connect(BROKER_URLS.amqp);
  const ch = await conn.createChannel();
  await ch.assertExchange("snip.events", "topic", { durable: true });
  // A durable queue that outlives a broker restart (stop_app/start_app keeps it).
  const q = `snip-test-${process.pid}-${Date.now()}`;
  await ch.assertQueue(q, { durable: true, autoDelete: false });
  await ch.bindQueue(q, "snip.events", "click.#");
  return {
    async events() {
      const c = await amqp.connect(BROKER_URLS.amqp);
      const cc = await c.createChannel();
      const seen: StreamEventSeen[] = [];
      for (;;) {
        const m = await cc.get(q, { noAck: false });
        if (m === false) break;
        seen.push(JSON.parse(m.content.toString()));
      }
      await cc.nackAll(true);
      await c.close();
      return seen;
    },
    async close() {
      const c = await amqp.connect(BROKER_URLS.amqp);
      const cc = await c.createChannel();
      await cc.deleteQueue(q);
      await c.close();
      await conn.close().catch(() => undefined);
    },
  };
}

export async function redisConsumer(): Promise<Consumer> {
  const read = async <T>(f: (c: ReturnType<typeof createClient>) => Promise<T>): Promise<T> => {
    const c = createClient({ url: BROKER_URLS.redis });
    c.on("error", () => undefined);
    await c.connect();
    try {
      return await f(c as ReturnType<typeof createClient>);
    } finally {
      c.destroy();
    }
  };
  const last = await read((c) => c.xRevRange("snip:clicks", "+", "-", { COUNT: 1 }));
  const from = last[0]?.id ?? "0-0";
  return {
    events: () => read(async (c) => (await c.xRange("snip:clicks", `(${from}`, "+")).map((e) => JSON.parse(String(e.message.event)))),
    close: async () => undefined,
  };
}

export async function natsConsumer(): Promise<Consumer> {
  const since = new Date().toISOString();
  return {
    async events() {
      const nc = await natsConnect({ servers: "127.0.0.1:4222" });
      try {
        const js = jetstream(nc);
        const c = await js.consumers.get("SNIP_CLICKS", { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since });
        const seen: StreamEventSeen[] = [];
        for (;;) {
          const batch = await c.fetch({ max_messages: 1000, expires: 1000 });
          let n = 0;
          for await (const m of batch) {
            seen.push(m.json<StreamEventSeen>());
            n++;
          }
          if (n === 0) break;
        }
        return seen;
      } finally {
        await nc.close();
      }
    },
    close: async () => undefined,
  };
}

export async function mqttConsumer(): Promise<Consumer> {
  const seen: StreamEventSeen[] = [];
  const c = await mqtt.connectAsync(BROKER_URLS.mqtt, { reconnectPeriod: 100, clientId: `snip-test-${process.pid}-${Date.now()}`, clean: true });
  c.on("message", (_t, payload) => seen.push(JSON.parse(payload.toString())));
  // A restarted Mosquitto forgets the subscription: subscribe again on every connection.
  c.on("connect", () => void c.subscribeAsync("snip/clicks/#", { qos: 1 }).catch(() => undefined));
  await c.subscribeAsync("snip/clicks/#", { qos: 1 });
  return { events: async () => [...seen], close: async () => void (await c.endAsync(true)) };
}

export const CONSUMERS: Record<Kind, () => Promise<Consumer>> = { amqp: amqpConsumer, redis: redisConsumer, nats: natsConsumer, mqtt: mqttConsumer };

const NATS_START =
  "start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log";
const REDIS_START =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log';

/** Stops and starts a broker with the commands .ci/run uses. */
export const BROKER_CONTROL: Record<Kind, { stop: string; start: string; port: number }> = {
  amqp: { stop: "rabbitmqctl stop_app", start: "rabbitmqctl start_app", port: 5672 },
  redis: { stop: "redis-cli shutdown nosave", start: REDIS_START, port: 6379 },
  nats: { stop: "kill $(pgrep -x nats-server)", start: NATS_START, port: 4222 },
  mqtt: { stop: "kill $(pgrep -x mosquitto)", start: "mosquitto -d -c /etc/mosquitto/mosquitto.conf", port: 1883 },
};

export function sh(cmd: string): void {
  execSync(cmd, { stdio: "ignore", timeout: 60_000 });
}

/** Resolves once something accepts connections on the port (the broker is back). */
export async function listening(port: number, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = netConnect(port, "127.0.0.1", () => (s.destroy(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
