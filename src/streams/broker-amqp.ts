// The amqp kind (contract/broker-kinds.ts): RabbitMQ through amqplib, a confirm channel, a durable topic exchange.
import amqp from "amqplib";
import { Lazy, type StreamEvent, owner, pinned } from "./broker-client.js";

/** Named by docs/stream.md. */
export const AMQP_EXCHANGE = "snip.events";

type AmqpConn = { conn: amqp.ChannelModel; ch: amqp.ConfirmChannel; broken: boolean };

export class AmqpClient extends Lazy<AmqpConn> {
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
