// The mqtt kind (contract/broker-kinds.ts): MQTT through mqtt.js, QoS 1, each PUBACK awaited.
import mqtt from "mqtt";
import { Lazy, type StreamEvent, owner, pinned } from "./broker-client.js";

export class MqttClient extends Lazy<mqtt.MqttClient> {
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
