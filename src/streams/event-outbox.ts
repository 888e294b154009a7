// The click stream's events beside clicks (docs/stream.md, Lead, sale and split events): lead.created,
// sale.created, link.split_decided, app.install and app.open, heard on the bus inside the transaction that records them and written to
// the same outbox as clicks, one row per active sink that takes the owner's events, in that transaction: at least
// once, published in order with the clicks by the same publisher, with a stable id (<type>:<record id>).
import type { Db } from "../storage/db.js";
import type { ConversionNotice, EventSubscriber } from "../shared/events.js";

/** One such event as the outbox row's `events` holds it ("x": not a click batch, see decodeOutward). */
interface OutwardRow {
  x: { type: string; id: string; owner_id: string | null; link: [string, string, string, string, (string | null)?]; data: Record<string, unknown> };
}

/** A decoded row: what the publisher makes the event's body of. */
export interface OutwardEvent {
  id: string;
  type: string;
  owner_id: string | null;
  link_id: string;
  alias: string;
  domain: string;
  url: string;
  folder_id: string | null;
  /** The event's own object under its name ({ lead }, { sale }, { decision }), as JSON without its braces. */
  tail: string;
}

/** The row's events text if it holds one outward event, else null (a click batch). */
export function decodeOutward(events: string): OutwardEvent | null {
  if (!events.startsWith('{"x":')) return null;
  const { x } = JSON.parse(events) as OutwardRow;
  // Rows written before folders (migration 050) hold four values: in no folder.
  const [link_id, alias, domain, url, folder_id = null] = x.link;
  return { id: x.id, type: x.type, owner_id: x.owner_id, link_id, alias, domain, url, folder_id, tail: JSON.stringify(x.data).slice(1, -1) };
}

interface Queued {
  type: string;
  id: string;
  ownerId: string | null;
  at: number;
  link: { id: string; alias: string; domain: string; url: string; folder_id: string | null };
  data: Record<string, unknown>;
}

/** Writes the event's outbox rows in `trx` (the recording transaction). */
export async function queueOutward(trx: Db, e: Queued): Promise<void> {
  const sinks = await trx
    .selectFrom("stream_sinks")
    .select("id")
    .where((eb) => eb.and([eb("active", "=", 1), eb("full", "=", 0), eb.or([eb("owner_id", "is", null), eb("owner_id", "=", e.ownerId)])]))
    .orderBy("id")
    .execute();
  if (sinks.length === 0) return;
  const row: OutwardRow = {
    x: { type: e.type, id: e.id, owner_id: e.ownerId, link: [e.link.id, e.link.alias, e.link.domain, e.link.url, e.link.folder_id], data: e.data },
  };
  const events = JSON.stringify(row);
  await trx
    .insertInto("stream_outbox")
    .values(
      sinks.map((s) => ({ sink_id: s.id, event_id: e.id, link_id: "", owner_id: null, alias: "", domain: "", url: "", at: e.at, click: "", n: 1, events })),
    )
    .execute();
}

function conversionQueued(type: "lead.created" | "sale.created" | "app.install" | "app.open", n: ConversionNotice): Queued {
  const record = (n.data.lead ?? n.data.sale ?? n.data.app_event) as { id: string };
  return { type, id: `${type}:${record.id}`, ownerId: n.ownerId, at: n.at, link: n.link, data: n.data };
}

/** The stream's subscriptions to the bus (src/context.ts wires them). */
export function subscribeOutward(events: EventSubscriber, now: () => number): void {
  events.subscribe("lead.created", (n) => queueOutward(n.within as Db, conversionQueued("lead.created", n)));
  events.subscribe("sale.created", (n) => queueOutward(n.within as Db, conversionQueued("sale.created", n)));
  events.subscribe("app.install", (n) => queueOutward(n.within as Db, conversionQueued("app.install", n)));
  events.subscribe("app.open", (n) => queueOutward(n.within as Db, conversionQueued("app.open", n)));
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
