// How each broker kind publishes, by its name in the registry (contract/broker-kinds.ts): one client class
// per kind, each in its file src/streams/broker-<kind>.ts. The Record makes a kind without its client a
// type error.
import type { BrokerKind } from "../contract/broker-kinds.js";
import type { BrokerClient, BrokerOptions, BrokerTarget } from "./broker-client.js";
import { AmqpClient } from "./broker-amqp.js";
import { RedisClient } from "./broker-redis.js";
import { NatsClient } from "./broker-nats.js";
import { MqttClient } from "./broker-mqtt.js";
import { ClickHouseClient } from "./broker-clickhouse.js";

export type { BrokerKind } from "../contract/broker-kinds.js";
export type { BrokerClient, StreamEvent } from "./broker-client.js";

const CLIENTS: Record<BrokerKind, new (target: BrokerTarget, opts: BrokerOptions) => BrokerClient> = {
  amqp: AmqpClient,
  redis: RedisClient,
  nats: NatsClient,
  mqtt: MqttClient,
  clickhouse: ClickHouseClient,
};

export function brokerClient(kind: BrokerKind, target: BrokerTarget, opts: BrokerOptions): BrokerClient {
  return new CLIENTS[kind](target, opts);
}
