// The click stream's events beside clicks (docs/stream.md, Lead, sale and split events): lead.created,
// sale.created, link.split_decided, app.install, app.open, link.broken and link.recovered, heard on the bus inside the transaction that records them and written to
// the same outbox as clicks, one row per active sink that takes the owner's events, in that transaction: at least
// once, published in order with the clicks by the same publisher, with a stable id (<type>:<record id>).
// The audit log's entries (type audit, admin/audit-log.ts) go the same way, without a link.
import type { Db } from "../storage/db.js";
import type { ConversionNotice, EventSubscriber } from "../shared/events.js";
import { type OutwardQueued, type OutwardRow, queueOutward } from "../storage/outward-outbox.js";

export { queueOutward };

/** The link an event is about, as the event's body shows it. */
export interface OutwardLink {
  link_id: string;
  alias: string;
  domain: string;
  url: string;
  folder_id: string | null;
}

/** A decoded row: what the publisher makes the event's body of. */
export interface OutwardEvent {
  id: string;
  type: string;
  owner_id: string | null;
  /** Null for an event about no link (audit). */
  link: OutwardLink | null;
  /** The event's own object under its name ({ lead }, { sale }, { decision }), as JSON without its braces. */
  tail: string;
}

/** The row's events text if it holds one outward event, else null (a click batch). */
export function decodeOutward(events: string): OutwardEvent | null {
  if (!events.startsWith('{"x":')) return null;
  const { x } = JSON.parse(events) as OutwardRow;
  let link: OutwardLink | null = null;
  if (x.link) {
    // Rows written before folders (migration 050) hold four values: in no folder.
    const [link_id, alias, domain, url, folder_id = null] = x.link;
    link = { link_id, alias, domain, url, folder_id };
  }
  return { id: x.id, type: x.type, owner_id: x.owner_id, link, tail: JSON.stringify(x.data).slice(1, -1) };
}

/** link.broken and link.recovered: one per destination and change (its check's time makes it unique). */
function healthQueued(type: "link.broken" | "link.recovered", n: ConversionNotice): OutwardQueued {
  const health = n.data.health as { destination: string };
  return { type, id: `${type}:${n.link.id}:${health.destination}:${n.at}`, ownerId: n.ownerId, at: n.at, link: n.link, data: n.data };
}

function conversionQueued(type: "lead.created" | "sale.created" | "app.install" | "app.open", n: ConversionNotice): OutwardQueued {
  const record = (n.data.lead ?? n.data.sale ?? n.data.app_event) as { id: string };
  return { type, id: `${type}:${record.id}`, ownerId: n.ownerId, at: n.at, link: n.link, data: n.data };
}

/** The stream's subscriptions to the bus (src/context.ts wires them). */
export function subscribeOutward(events: EventSubscriber, now: () => number): void {
  events.subscribe("lead.created", (n) => queueOutward(n.within as Db, conversionQueued("lead.created", n)));
  events.subscribe("sale.created", (n) => queueOutward(n.within as Db, conversionQueued("sale.created", n)));
  events.subscribe("app.install", (n) => queueOutward(n.within as Db, conversionQueued("app.install", n)));
  events.subscribe("app.open", (n) => queueOutward(n.within as Db, conversionQueued("app.open", n)));
  events.subscribe("link.broken", (n) => queueOutward(n.within as Db, healthQueued("link.broken", n)));
  events.subscribe("link.recovered", (n) => queueOutward(n.within as Db, healthQueued("link.recovered", n)));
  events.subscribe("link.split_decided", async (n) => {
    const trx = n.within as Db;
    const link = await trx.selectFrom("links").select(["id", "alias", "domain", "url", "folder_id"]).where("id", "=", n.linkId).executeTakeFirst();
    if (!link) return;
    const at = now();
    await queueOutward(trx, {
      type: "link.split_decided",
      id: `link.split_decided:${n.linkId}:${n.decision.at}`,
      ownerId: n.ownerId,
      at,
      link,
      data: { decision: n.decision },
    });
  });
}
