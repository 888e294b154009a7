// The click stream's outbox rows of one event beside clicks (streams/event-outbox.ts reads them; docs/stream.md): one row
// per active sink that takes the owner's events (the operator's, owner null, take every one), written in the caller's
// transaction so that the event exists exactly when its fact does. Here, below the feature folders, so that those that
// record facts of their own (the audit log: admin/, accounts/) queue them without knowing the streams.
import type { Db } from "./db.js";

/** One such event as the outbox row's `events` holds it ("x": not a click batch, see decodeOutward). */
export interface OutwardRow {
  /** `link` is absent for an event about no link (audit). */
  x: { type: string; id: string; owner_id: string | null; link?: [string, string, string, string, (string | null)?]; data: Record<string, unknown> };
}

export interface OutwardQueued {
  type: string;
  id: string;
  ownerId: string | null;
  at: number;
  /** Null for an event about no link (audit). */
  link: { id: string; alias: string; domain: string; url: string; folder_id: string | null } | null;
  data: Record<string, unknown>;
}

/** Writes the event's outbox rows in `trx` (the recording transaction). */
export async function queueOutward(trx: Db, e: OutwardQueued): Promise<void> {
  const sinks = await trx
    .selectFrom("stream_sinks")
    .select("id")
    .where((eb) => eb.and([eb("active", "=", 1), eb("full", "=", 0), eb.or([eb("owner_id", "is", null), eb("owner_id", "=", e.ownerId)])]))
    .orderBy("id")
    .execute();
  if (sinks.length === 0) return;
  const row: OutwardRow = { x: { type: e.type, id: e.id, owner_id: e.ownerId, data: e.data } };
  if (e.link) row.x.link = [e.link.id, e.link.alias, e.link.domain, e.link.url, e.link.folder_id];
  const events = JSON.stringify(row);
  await trx
    .insertInto("stream_outbox")
    .values(
      sinks.map((s) => ({ sink_id: s.id, event_id: e.id, link_id: "", owner_id: null, alias: "", domain: "", url: "", at: e.at, click: "", n: 1, events })),
    )
    .execute();
}
