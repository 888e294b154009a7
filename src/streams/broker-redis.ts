// The redis kind (contract/broker-kinds.ts): Redis Streams through the redis client, XADD with MAXLEN ~ N.
import { createClient } from "redis";
import { Lazy, type StreamEvent, owner, pinned } from "./broker-client.js";

/** Named by docs/stream.md. */
export const REDIS_STREAM = "snip:clicks";

type RedisConn = ReturnType<typeof createClient>;

export class RedisClient extends Lazy<RedisConn> {
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
