// The click writer's side of the click stream (docs/stream.md), a listener of the writers' "stored" event
// (src/clicks/stored.ts, listed in src/click-listeners.ts): in the transaction that stores a batch's
// clicks, one outbox row per sink holding that batch's events (the operator's brokers get every click, an
// account's its own links'), so an event exists exactly when its click is stored. A row per batch, not
// per click: the writer's cost per click is a string, and the backlog a sum over a few rows (a broker
// that never answers holds up no redirect). Nothing is written when no sink is active.
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { ClickRow } from "../clicks/click-groups.js";
import type { StoredChunk, StoredListener } from "../clicks/stored.js";

/** A click's event fields, normalised as the event's "click" object has them: [at, country, device, os, browser, referrer_host, bot, destination, qr]. */
type ClickTuple = [number, string | null, string, string | null, string | null, string | null, 0 | 1, string, 0 | 1];

function clickTuple(r: ClickRow): ClickTuple {
  const unknown = (v: string) => (v === "unknown" || v === "" ? null : v);
  return [
    Number(r.at),
    unknown(r.country),
    r.device,
    unknown(r.os),
    unknown(r.browser),
    r.referrer === "direct" ? null : unknown(r.referrer),
    Number(r.is_bot) === 1 ? 1 : 0,
    r.destination ?? "default",
    Number(r.qr) === 1 ? 1 : 0,
  ];
}

/** The event's "click" object (docs/stream.md), as the webhook payload has it. */
function clickObject(t: ClickTuple): Record<string, unknown> {
  const [at, country, device, os, browser, referrer_host, bot, destination, qr] = t;
  return { at: new Date(at).toISOString(), country, device, os, browser, referrer_host, bot: bot === 1, destination, source: qr === 1 ? "qr" : "link" };
}

const ACTIVE = "s.active = 1 AND s.full = 0";

/** One event of a batch row, decoded (the publisher's view of `stream_outbox.events`). */
export interface QueuedEvent {
  id: string;
  owner_id: string | null;
  link_id: string;
  alias: string;
  domain: string;
  url: string;
  folder_id: string | null;
  click: Record<string, unknown>;
}

interface Sink {
  id: string;
  owner_id: string | null;
}

interface LinkRef {
  id: string;
  owner_id: string | null;
  alias: string;
  domain: string;
  url: string;
  folder_id: string | null;
}

/** An outbox row holding a batch's events for one sink. */
export interface BatchRow {
  sink_id: string;
  event_id: string;
  at: number;
  n: number;
  events: string;
}

/**
 * A batch row's `events`, compact: each link once ("l": id, owner, alias, domain, url, folder) and each click as
 * numbers and short strings ("e": the link's index, the event's number after the prefix "p", then the
 * click's ClickTuple). The writer pays for an array of a few values per click; the publisher makes the
 * JSON events (decodeBatch).
 */
interface EncodedBatch {
  p: string;
  l: [string, string | null, string, string, string, (string | null)?][];
  e: [number, number, ...ClickTuple][];
}

/**
 * The batch's rows, one per sink with events, in the clicks' order (each link's clicks keep their time
 * order in every sink's queue). A click whose link is gone (deleted before the write) has no event, as it
 * has no row.
 */
export function batchRows(sinks: readonly Sink[], links: ReadonlyMap<number, LinkRef>, rows: readonly ClickRow[], first: number, prefix: string): BatchRow[] {
  const encoded = sinks.map((): EncodedBatch => ({ p: prefix, l: [], e: [] }));
  const indexIn = sinks.map(() => new Map<number, number>());
  let at = Infinity;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as ClickRow;
    const num = Number(r.link_num);
    const link = links.get(num);
    if (link === undefined) continue;
    const tuple = clickTuple(r);
    at = Math.min(at, tuple[0]);
    for (let s = 0; s < sinks.length; s++) {
      const owner = (sinks[s] as Sink).owner_id;
      if (owner !== null && owner !== link.owner_id) continue;
      const batch = encoded[s] as EncodedBatch;
      const known = indexIn[s] as Map<number, number>;
      let li = known.get(num);
      if (li === undefined) {
        li = batch.l.push([link.id, link.owner_id, link.alias, link.domain, link.url, link.folder_id ?? null]) - 1;
        known.set(num, li);
      }
      batch.e.push([li, first + i, ...tuple]);
    }
  }
  const out: BatchRow[] = [];
  sinks.forEach((sink, s) => {
    const batch = encoded[s] as EncodedBatch;
    if (batch.e.length > 0) out.push({ sink_id: sink.id, event_id: `${prefix}.${first}`, at, n: batch.e.length, events: JSON.stringify(batch) });
  });
  return out;
}

/** A batch row's events, as the publisher sends them. */
export function decodeBatch(events: string): QueuedEvent[] {
  const b = JSON.parse(events) as EncodedBatch;
  return b.e.map(([li, n, ...tuple]) => {
    // Rows written before folders (migration 050) hold five values: in no folder.
    const [link_id, owner_id, alias, domain, url, folder_id = null] = b.l[li] as EncodedBatch["l"][number];
    return { id: `${b.p}.${n}`, owner_id, link_id, alias, domain, url, folder_id, click: clickObject(tuple) };
  });
}

/** PostgreSQL: the batch's outbox rows, inside the batch's transaction. */
async function queuePostgres(trx: Db, { rows, prefix }: StoredChunk): Promise<void> {
  if (rows.length === 0) return;
  const sinks = (await sql<Sink>`SELECT s.id, s.owner_id FROM stream_sinks s WHERE ${sql.raw(ACTIVE)} ORDER BY s.id`.execute(trx)).rows;
  if (sinks.length === 0) return;
  const nums = [...new Set(rows.map((r) => Number(r.link_num)))];
  const found = await sql<
    LinkRef & { num: string | number }
  >`SELECT num, id, owner_id, alias, domain, url, folder_id FROM links WHERE num = ANY(${nums}::bigint[])`.execute(trx);
  const links = new Map(found.rows.map((l) => [Number(l.num), l]));
  const out = batchRows(sinks, links, rows, 0, prefix);
  if (out.length === 0) return;
  await trx
    .insertInto("stream_outbox")
    .values(out.map((o) => ({ ...o, link_id: "", owner_id: null, alias: "", domain: "", url: "", click: "" })))
    .execute();
}

/** SQLite: statements prepared on first use (the table may not exist when the writer is built). */
function sqliteOutbox(handle: SQLite.Database): (chunk: StoredChunk) => void {
  let s: { sinks: SQLite.Statement; link: SQLite.Statement; insert: SQLite.Statement } | null = null;
  return ({ rows, first, prefix }) => {
    s ??= {
      sinks: handle.prepare(`SELECT s.id, s.owner_id FROM stream_sinks s WHERE ${ACTIVE} ORDER BY s.id`),
      link: handle.prepare("SELECT id, owner_id, alias, domain, url, folder_id FROM links WHERE num = ?"),
      insert: handle.prepare(`INSERT INTO stream_outbox (sink_id, event_id, link_id, owner_id, alias, domain, url, at, click, n, events)
        VALUES (?, ?, '', NULL, '', '', '', ?, '', ?, ?)`),
    };
    const sinks = s.sinks.all() as Sink[];
    if (sinks.length === 0) return;
    const links = new Map<number, LinkRef>();
    for (const r of rows) {
      const num = Number(r.link_num);
      if (links.has(num)) continue;
      const link = s.link.get(num) as LinkRef | undefined;
      if (link !== undefined) links.set(num, link);
    }
    for (const o of batchRows(sinks, links, rows, first, prefix)) s.insert.run(o.sink_id, o.event_id, o.at, o.n, o.events);
  };
}

/** The listener the writers are given: at least once, each event written with its click or not at all. */
export const streamOutbox: StoredListener = { name: "stream outbox", sqlite: sqliteOutbox, postgres: queuePostgres };
