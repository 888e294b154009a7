// Webhooks as the service builds them: subscriptions (the service and every instance's directory), the
// SSRF-checked sender, the delivery log and the click deliveries' queue. An account's plan or status
// change ("account.changed", from accounts/ and admin/) reloads the owner's subscriptions everywhere.
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Storage } from "../storage/db.js";
import type { OwnerCaps } from "../storage/owner-caps.js";
import type { RateEvents } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import type { EventSubscriber } from "../shared/events.js";
import type { CountryResolver } from "../clicks/describe.js";
import { ReceiverCheck } from "./receiver-check.js";
import { SecretBox } from "./secrets.js";
import { WebhookDirectory } from "./directory.js";
import { type SenderOptions, WebhookSender } from "./send.js";
import { DeliveryLog } from "./delivery-log.js";
import { ClickDeliveries, DEFAULT_QUEUE_LIMITS, type QueueLimits } from "./click-deliveries.js";
import { WebhookService } from "./webhooks.js";
import { EventDeliveries } from "./event-deliveries.js";

export interface WebhooksDeps {
  settings: Pick<Config, "origin" | "sessionSecret" | "dnsServers" | "webhookAllowPrivate">;
  storage: Storage;
  caps: OwnerCaps;
  rate: RateEvents;
  clock: Clock;
  log: Logger;
  countries: CountryResolver;
  /** Subscribes to "account.changed", and to lead.created, sale.created and link.split_decided (event-deliveries.ts). */
  events: EventSubscriber;
  /** Certificate authorities replacing Node's store (tests: an in-process server cannot take NODE_EXTRA_CA_CERTS). */
  ca?: string[];
  /** Smaller queue bounds (tests). */
  limits?: Partial<QueueLimits>;
  /** Tracing's span per delivery. */
  observe?: SenderOptions["observe"];
}

export interface Webhooks {
  webhooks: WebhookService;
  clickDeliveries: ClickDeliveries;
  /** The SSRF guard's address check, which imports' sources use too. */
  receiverCheck: ReceiverCheck;
  /** Loads the subscriptions (before the first request) and reloads them every so often. */
  start(): Promise<void>;
  /** Stops listening, delivers what is queued, writes the delivery log, closes the connections. */
  close(): Promise<void>;
}

export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { settings, storage, clock, log } = deps;
  if (settings.webhookAllowPrivate) log.warn("WEBHOOK_ALLOW_PRIVATE=true: webhooks may deliver to loopback and private addresses");
  const receiverCheck = new ReceiverCheck({ dnsServers: settings.dnsServers, allowPrivate: settings.webhookAllowPrivate });
  const box = new SecretBox(settings.sessionSecret);
  const directory = new WebhookDirectory({ db: storage.db, feed: storage.feed, box, log });
  const limits = { ...DEFAULT_QUEUE_LIMITS, ...deps.limits };
  const now = () => clock.now();
  const sender = new WebhookSender({ check: receiverCheck, now, ca: deps.ca, connections: limits.concurrency, observe: deps.observe });
  const deliveryLog = new DeliveryLog({ db: storage.db, log });
  const clickDeliveries = new ClickDeliveries({ directory, sender, deliveryLog, countries: deps.countries, origin: settings.origin, now, log, limits });
  const webhooks = new WebhookService({
    db: storage.db,
    caps: deps.caps,
    rate: deps.rate,
    clock,
    check: receiverCheck,
    box,
    directory,
    sender,
    deliveryLog,
    origin: settings.origin,
  });
  const eventDeliveries = new EventDeliveries({ directory, sender, deliveryLog, origin: settings.origin, now, log });
  eventDeliveries.subscribe(deps.events);
  deps.events.subscribe("account.changed", ({ userId }) => webhooks.ownerChanged(userId).catch((err) => log.warn({ err }, "webhook directory reload failed")));
  return {
    webhooks,
    clickDeliveries,
    receiverCheck,
    start: () => directory.start(),
    async close() {
      directory.stop();
      await clickDeliveries.close();
      await eventDeliveries.close();
      await deliveryLog.close().catch((err) => log.warn({ err }, "webhook delivery log not written at shutdown"));
      await sender.close();
    },
  };
}
