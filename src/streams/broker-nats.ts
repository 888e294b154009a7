// The nats kind (contract/broker-kinds.ts): NATS JetStream, its stream created if missing, acks awaited.
import { connect as natsConnect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Lazy, type StreamEvent, owner, pinned } from "./broker-client.js";

/** Named by docs/stream.md. */
export const NATS_STREAM = "SNIP_CLICKS";

export class NatsClient extends Lazy<NatsConnection> {
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
