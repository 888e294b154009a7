// One client per sink and broker kind (docs/stream.md), each with a kept library: connected on first use,
// every publish round bounded in time; a failure or a timeout drops the connection, so the next round
// connects afresh. A round resolves only once the broker has confirmed every event of it.
import amqp from "amqplib";
import { createClient } from "redis";
import { connect as natsConnect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import mqtt from "mqtt";

export const BROKER_KINDS = ["amqp", "redis", "nats", "mqtt"] as const;
export type BrokerKind = (typeof BROKER_KINDS)[number];

/** Names fixed by docs/stream.md. */
export const AMQP_EXCHANGE = "snip.events";
export const REDIS_STREAM = "snip:clicks";
export const NATS_STREAM = "SNIP_CLICKS";
/** The owner part of a routing key, subject or topic for a link without an owner. */
export const NO_OWNER = "none";

export interface StreamEvent {
  id: string;
  ownerId: string | null;
  /** The event, JSON. */
  body: string;
}

/** Where to connect: the URL, and for an account's broker the checked address to connect to instead of its host. */
export interface BrokerTarget {
  url: string;
  /** The address the host was checked to resolve to (DNS rebinding cannot move the connection elsewhere). */
  address?: string;
}

export interface BrokerOptions {
  /** Bound on connecting and on each publish round. */
  timeoutMs: number;
  /** Redis: MAXLEN ~ N. */
  redisMaxLen: number;
  /** MQTT client id prefix (the instance's). */
  clientId: string;
}

export interface BrokerClient {
  publish(events: readonly StreamEvent[]): Promise<void>;
  close(): Promise<void>;
}

const owner = (e: StreamEvent) => e.ownerId ?? NO_OWNER;

/** A URL whose host is the checked address (TLS still names the host: `servername`). */
function pinned(target: BrokerTarget): { url: string; servername?: string } {
  if (!target.address) return { url: target.url };
  const u = new URL(target.url);
  const servername = u.hostname;
  u.hostname = target.address.includes(":") ? `[${target.address}]` : target.address;
  return { url: u.href, servername };
}

function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Keeps one connection, made on demand; dropped on any failure. */
abstract class Lazy<C> implements BrokerClient {
  private conn: Promise<C> | null = null;
  constructor(protected readonly target: BrokerTarget, protected readonly opts: BrokerOptions) {}
  protected abstract open(): Promise<C>;
  protected abstract send(c: C, events: readonly StreamEvent[]): Promise<void>;
  protected abstract shut(c: C): Promise<void>;

  async publish(events: readonly StreamEvent[]): Promise<void> {
    const conn = (this.conn ??= this.open());
    try {
      const c = await bounded(conn, this.opts.timeoutMs, "connect");
      await bounded(this.send(c, events), this.opts.timeoutMs, "publish");
    } catch (err) {
      if (this.conn === conn) this.conn = null;
      void conn.then((c) => this.shut(c), () => undefined).catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    if (conn) await conn.then((c) => this.shut(c), () => undefined).catch(() => undefined);
  }
}

type AmqpConn = { conn: amqp.ChannelModel; ch: amqp.ConfirmChannel; broken: boolean };

class AmqpClient extends Lazy<AmqpConn> {
  protected async open(): Promise<AmqpConn> {
    const { url, servername } = pinned(this.target);
    const conn = await amqp.connect(url, { timeout: this.opts.timeoutMs, ...(servername ? { servername } : {}) });
    const c: AmqpConn = { conn, ch: await conn.createConfirmChannel(), broken: false };
    const broken = () => (c.broken = true);
    conn.on("error", broken).on("close", broken);
    c.ch.on("error", broken).on("close", broken);
    await c.ch.assertExchange(AMQP_EXCHANGE, "topic", { durable: true });
    return c;
  }
  protected async send(c: AmqpConn, events: readonly StreamEvent[]): Promise<void> {
    if (c.broken) throw new Error("AMQP connection closed");
    for (const e of events) {
      c.ch.publish(AMQP_EXCHANGE, `click.${owner(e)}`, Buffer.from(e.body), { persistent: true, contentType: "application/json", messageId: e.id });
    }
    await c.ch.waitForConfirms();
  }
  protected async shut(c: AmqpConn): Promise<void> {
    await c.conn.close().catch(() => undefined);
  }
}

type RedisConn = ReturnType<typeof createClient>;

class RedisClient extends Lazy<RedisConn> {
  protected async open(): Promise<RedisConn> {
    const { url, servername } = pinned(this.target);
    const socket = { connectTimeout: this.opts.timeoutMs, reconnectStrategy: false as const, ...(servername ? { servername } : {}) };
    const client = createClient({ url, socket, disableOfflineQueue: true });
    client.on("error", () => undefined);
    await client.connect();
    return client as RedisConn;
  }
  protected async send(c: RedisConn, events: readonly StreamEvent[]): Promise<void> {
    const trim = { TRIM: { strategy: "MAXLEN" as const, strategyModifier: "~" as const, threshold: this.opts.redisMaxLen } };
    await Promise.all(events.map((e) => c.xAdd(REDIS_STREAM, "*", { id: e.id, owner_id: owner(e), event: e.body }, trim)));
  }
  protected async shut(c: RedisConn): Promise<void> {
    c.destroy();
  }
}

class NatsClient extends Lazy<NatsConnection> {
  protected async open(): Promise<NatsConnection> {
    // NATS over TLS checks the certificate against the server name it dials: that one connects by name.
    const tlsUrl = new URL(this.target.url).protocol === "tls:";
    const u = new URL(tlsUrl ? this.target.url : pinned(this.target).url);
    const auth = u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : {};
    const tls = tlsUrl ? { tls: {} } : {};
    const nc = await natsConnect({ servers: `${u.hostname}:${u.port || 4222}`, timeout: this.opts.timeoutMs, reconnect: false, ...auth, ...tls });
    try {
      const jsm = await jetstreamManager(nc, { timeout: this.opts.timeoutMs });
      await jsm.streams.info(NATS_STREAM).catch(() => jsm.streams.add({ name: NATS_STREAM, subjects: ["snip.clicks.>"] }));
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
    return nc;
  }
  protected async send(nc: NatsConnection, events: readonly StreamEvent[]): Promise<void> {
    if (nc.isClosed()) throw new Error("NATS connection closed");
    const js = jetstream(nc, { timeout: this.opts.timeoutMs });
    await Promise.all(events.map((e) => js.publish(`snip.clicks.${owner(e)}`, e.body, { msgID: e.id })));
  }
  protected async shut(nc: NatsConnection): Promise<void> {
    await nc.close().catch(() => undefined);
  }
}

class MqttClient extends Lazy<mqtt.MqttClient> {
  protected async open(): Promise<mqtt.MqttClient> {
    const { url, servername } = pinned(this.target);
    const clientId = `${this.opts.clientId}-${Math.random().toString(36).slice(2, 8)}`;
    return mqtt.connectAsync(url, { connectTimeout: this.opts.timeoutMs, reconnectPeriod: 0, clientId, ...(servername ? { servername } : {}) }, false);
  }
  protected async send(c: mqtt.MqttClient, events: readonly StreamEvent[]): Promise<void> {
    if (!c.connected) throw new Error("MQTT connection closed");
    await Promise.all(events.map((e) => c.publishAsync(`snip/clicks/${owner(e)}`, e.body, { qos: 1 })));
  }
  protected async shut(c: mqtt.MqttClient): Promise<void> {
    await c.endAsync(true).catch(() => undefined);
  }
}

export function brokerClient(kind: BrokerKind, target: BrokerTarget, opts: BrokerOptions): BrokerClient {
  switch (kind) {
    case "amqp":
      return new AmqpClient(target, opts);
    case "redis":
      return new RedisClient(target, opts);
    case "nats":
      return new NatsClient(target, opts);
    case "mqtt":
      return new MqttClient(target, opts);
  }
}
