// Notices between feature folders that must not import each other: the folder where something happens
// publishes an event, the folder that must follow subscribes, and src/context.ts hands both the same bus.
// Which folder may publish or subscribe to which event is listed in eslint.config.js (FEATURE_EVENTS) and
// checked by lint, so these dependencies are as visible as imports.
import type { Logger } from "pino";

/** Every event, with what it carries. */
export interface SnipEvents {
  /**
   * An account's plan or status changed, or the account is gone (accounts/: the owner's own change or the
   * CLI's; admin/: an operator's). What is cached per owner and depends on them follows on every instance.
   */
  "account.changed": { userId: string };
  /** The outbox's transport accepted a message stored with a key "<kind>:<id>", whoever waited for it (mail/). */
  "mail.sent": { key: string };
  /**
   * A split that picks its winner reached its end (conversions/split-winner.ts): a winner made the link's url, or
   * no clear winner. `decision` is the link's split_decision (contract/targeting.ts's SplitDecision).
   */
  "link.split_decided": {
    linkId: string;
    ownerId: string | null;
    decision: { result: string; goal: string; winner: string | null; url: string | null; summary: string; at: string };
    /** The deciding transaction (see ConversionNotice.within). */
    within: unknown;
  };
  /** A lead recorded for the first time (conversions/leads.ts), never for a repeat answered with the first lead. */
  "lead.created": ConversionNotice;
  /** A sale recorded for the first time (conversions/sales.ts), never for a repeated invoice_id nor a refund. */
  "sale.created": ConversionNotice;
  /** An app's first launch matched to a link (deeplinks/app-opens.ts), once per click id: `data` is { app_event }. */
  "app.install": ConversionNotice;
  /** An app opened through a short link's address (a universal link or app link): `data` is { app_event }. */
  "app.open": ConversionNotice;
  /** A destination of a link failed its third check in a row (health/): `data` is { health }. */
  "link.broken": ConversionNotice;
  /** A broken destination answered again (health/): `data` is { health }. */
  "link.recovered": ConversionNotice;
}

/**
 * What the events of OUTWARD_EVENTS carry to receivers (webhooks/, streams/, the live feed): published inside the
 * transaction that records the fact, so a subscriber writing rows of its own (the click stream's outbox) writes
 * them in `within` and they exist exactly when the fact does; a subscriber sending somewhere (webhooks, the live
 * feed) only queues and sends after (it must not wait on the database outside `within`: SQLite has one writer).
 */
export interface ConversionNotice {
  ownerId: string;
  /** The recording transaction: a Kysely transaction over the schema (opaque here: shared/ knows no storage). */
  within: unknown;
  /** Epoch ms. */
  at: number;
  link: { id: string; alias: string; domain: string; url: string; folder_id: string | null };
  /** The event's own object as receivers get it, under its name: { lead: {...} } or { sale: {...} } (docs/webhooks.md). */
  data: Record<string, unknown>;
}

/**
 * The events receivers may subscribe to beside the spec's link_click (docs/webhooks.md, Events; docs/stream.md): one
 * list for webhooks' opt-in, the click stream and the live feed.
 */
export const OUTWARD_EVENTS = ["lead.created", "sale.created", "link.split_decided", "app.install", "app.open", "link.broken", "link.recovered"] as const;
export type OutwardEvent = (typeof OUTWARD_EVENTS)[number];

export type EventName = keyof SnipEvents;
type Handler<E extends EventName> = (event: SnipEvents[E]) => Promise<void> | void;

/** What a publishing folder is handed. */
export interface EventPublisher {
  publish<E extends EventName>(name: E, event: SnipEvents[E]): Promise<void>;
}

/** What a subscribing folder is handed. */
export interface EventSubscriber {
  subscribe<E extends EventName>(name: E, handler: Handler<E>): void;
}

/**
 * In-process and awaited: `publish` returns once every handler has finished, so the change's caller answers
 * after what follows it (as the direct calls these replace did). A handler's failure is logged, never
 * thrown: the change it follows has happened and must not be reported failed.
 */
export class EventBus implements EventPublisher, EventSubscriber {
  private readonly handlers = new Map<EventName, Array<Handler<EventName>>>();

  constructor(private readonly log: Pick<Logger, "warn">) {}

  subscribe<E extends EventName>(name: E, handler: Handler<E>): void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as Handler<EventName>);
    this.handlers.set(name, list);
  }

  async publish<E extends EventName>(name: E, event: SnipEvents[E]): Promise<void> {
    for (const handler of this.handlers.get(name) ?? []) {
      try {
        await handler(event);
      } catch (err) {
        this.log.warn({ err, event: name }, "event handler failed");
      }
    }
  }
}
