// What every broker kind's client shares (docs/stream.md): the events it is handed, where it connects, and
// the lazy connection each keeps: connected on first use, every publish round bounded in time; a failure or
// a timeout drops the connection, so the next round connects afresh. A round resolves only once the broker
// has confirmed every event of it.

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

export const owner = (e: StreamEvent) => e.ownerId ?? NO_OWNER;

/** A URL whose host is the checked address (TLS still names the host: `servername`). */
export function pinned(target: BrokerTarget): { url: string; servername?: string } {
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
export abstract class Lazy<C> implements BrokerClient {
  private conn: Promise<C> | null = null;
  constructor(
    protected readonly target: BrokerTarget,
    protected readonly opts: BrokerOptions,
  ) {}
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
      void conn
        .then(
          (c) => this.shut(c),
          () => undefined,
        )
        .catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    if (conn)
      await conn
        .then(
          (c) => this.shut(c),
          () => undefined,
        )
        .catch(() => undefined);
  }
}
