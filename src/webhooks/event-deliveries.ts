// lead.created, sale.created, link.split_decided, app.install, app.open, link.broken and link.recovered to the webhooks that opted in (docs/webhooks.md, Events):
// heard on the bus inside the recording transaction, queued there (nothing waits on the database in it) and
// sent from the next turn on, each to the owner's active webhooks taking that event: signed, one attempt of at
// most two seconds and logged, as link_click deliveries are. A bounded number wait per instance; more are dropped
// and counted on the webhook, like clicks.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { ConversionNotice, EventSubscriber, SnipEvents } from "../shared/events.js";
import { shortUrl } from "../links/public-link.js";
import { iso } from "../shared/clock.js";
import type { DeliveryLog } from "./delivery-log.js";
import type { WebhookDirectory } from "./directory.js";
import type { OutwardWebhookEvent } from "./event-messages.js";
import type { DeliveryTarget, WebhookSender } from "./send.js";

/** Deliveries waiting or in flight on one instance; past it an event is dropped for that webhook. */
export const EVENT_QUEUE_MAX = 1_000;

export interface EventDeliveriesDeps {
  directory: WebhookDirectory;
  sender: WebhookSender;
  deliveryLog: DeliveryLog;
  origin: string;
  now: () => number;
  log: Logger;
}

type Link = { id: string; alias: string; domain: string; url: string; folder_id: string | null };

export class EventDeliveries {
  private waiting = 0;
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly deps: EventDeliveriesDeps) {}

  subscribe(events: EventSubscriber): void {
    const conversion = (type: "lead.created" | "sale.created" | "app.install" | "app.open" | "link.broken" | "link.recovered") => (n: ConversionNotice) =>
      this.queue(type, n.ownerId, n.link, n.data);
    events.subscribe("lead.created", conversion("lead.created"));
    events.subscribe("sale.created", conversion("sale.created"));
    events.subscribe("app.install", conversion("app.install"));
    events.subscribe("app.open", conversion("app.open"));
    events.subscribe("link.broken", conversion("link.broken"));
    events.subscribe("link.recovered", conversion("link.recovered"));
    events.subscribe("link.split_decided", (n: SnipEvents["link.split_decided"]) => {
      if (n.ownerId === null || this.deps.directory.targetsFor(n.ownerId, "link.split_decided").length === 0) return;
      // The link's alias and url are read after the deciding transaction (never inside it: see the bus's notes).
      const ownerId = n.ownerId;
      setImmediate(() => {
        void this.linkOf(n.linkId).then((link) => link && this.queue("link.split_decided", ownerId, link, { decision: n.decision }));
      });
    });
  }

  private async linkOf(id: string): Promise<Link | undefined> {
    try {
      return await this.deps.directory.linkOf(id);
    } catch (err) {
      this.deps.log.warn({ err, link: id }, "webhook event: link not read");
      return undefined;
    }
  }

  /** Queues the event for the owner's webhooks that take it; sending starts on the next turn. */
  queue(type: OutwardWebhookEvent["type"], ownerId: string, link: Link, data: Record<string, unknown>): void {
    if (this.closed) return;
    const targets = this.deps.directory.targetsFor(ownerId, type);
    for (const target of targets) {
      if (this.waiting >= EVENT_QUEUE_MAX) {
        this.deps.deliveryLog.dropped(target.id);
        continue;
      }
      this.waiting++;
      const event: OutwardWebhookEvent = {
        version: 1,
        id: randomUUID(),
        type,
        created_at: iso(this.deps.now()) as string,
        test: false,
        link: {
          id: link.id,
          alias: link.alias,
          domain: link.domain || null,
          short_url: shortUrl(this.deps.origin, link.domain, link.alias),
          url: link.url,
          folder_id: link.folder_id,
        },
        ...data,
      };
      setImmediate(() => {
        const p = this.deliver(target, event).finally(() => {
          this.waiting--;
          this.inflight.delete(p);
        });
        this.inflight.add(p);
      });
    }
  }

  private async deliver(target: DeliveryTarget, event: OutwardWebhookEvent): Promise<void> {
    try {
      if (this.closed || !(await this.deps.directory.confirm(target))) return;
      this.deps.deliveryLog.add(await this.deps.sender.send(target, event));
    } catch (err) {
      this.deps.log.warn({ err, webhook: target.id }, "webhook event delivery failed unexpectedly");
    }
  }

  /** Events waiting or in flight (tests watch it drain). */
  get pending(): number {
    return this.waiting;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.inflight]);
  }
}
