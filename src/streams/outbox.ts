// The click writer's side of the click stream (docs/stream.md): in the transaction that stores a batch's
// clicks, one outbox row per click and sink (the operator's brokers get every click, an account's its own
// links'), so an event exists exactly when its click is stored. Nothing is written when no sink is active.
import { randomUUID } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { ClickRow } from "../clicks/click-groups.js";
import type { JournalMark } from "../clicks/click-buffer.js";

/** The event's "click" object (docs/stream.md), as the webhook payload has it. */
export function clickJson(r: ClickRow): string {
  const unknown = (v: string) => (v === "unknown" || v === "" ? null : v);
  return JSON.stringify({
    at: new Date(Number(r.at)).toISOString(),
    country: unknown(r.country),
    device: r.device,
    os: unknown(r.os),
    browser: unknown(r.browser),
    referrer_host: r.referrer === "direct" ? null : unknown(r.referrer),
    bot: Number(r.is_bot) === 1,
    destination: r.destination ?? "default",
    source: Number(r.qr) === 1 ? "qr" : "link",
  });
}

/**
 * The ids of a batch's events: "<journal>.<segment>.<row>", unique because a segment is committed once
 * (and the same again if a batch is retried); a batch without a journal gets a random prefix.
 */
export function eventIdPrefix(mark: JournalMark | undefined): string {
  return mark ? `${mark.journal}.${mark.segment}` : randomUUID();
}

const ACTIVE = "s.active = 1 AND s.full = 0";

/** PostgreSQL: the batch's outbox rows in one statement, inside the batch's transaction. */
export async function queuePostgres(trx: Db, rows: readonly ClickRow[], prefix: string): Promise<void> {
  const any = await sql<{ one: number }>`SELECT 1 AS one FROM stream_sinks s WHERE ${sql.raw(ACTIVE)} LIMIT 1`.execute(trx);
  if (any.rows.length === 0 || rows.length === 0) return;
  const nums = rows.map((r) => r.link_num);
  const ids = rows.map((_, i) => `${prefix}.${i}`);
  const ats = rows.map((r) => r.at);
  const clicks = rows.map(clickJson);
  // In the rows' order per sink: each link's clicks keep their time order in every sink's queue.
  await sql`INSERT INTO stream_outbox (sink_id, event_id, link_id, owner_id, alias, domain, url, at, click)
    SELECT s.id, v.eid, l.id, l.owner_id, l.alias, l.domain, l.url, v.at, v.click
    FROM unnest(${nums}::bigint[], ${ids}::text[], ${ats}::bigint[], ${clicks}::text[]) WITH ORDINALITY AS v(num, eid, at, click, ord)
    JOIN links l ON l.num = v.num
    JOIN stream_sinks s ON ${sql.raw(ACTIVE)} AND (s.owner_id IS NULL OR s.owner_id = l.owner_id)
    ORDER BY s.id, v.ord`.execute(trx);
}

/** SQLite: statements prepared on first use (the table may not exist when the writer is built). */
export function sqliteOutbox(handle: SQLite.Database): (rows: readonly ClickRow[], first: number, prefix: string) => void {
  let s: { any: SQLite.Statement; insert: SQLite.Statement } | null = null;
  return (rows, first, prefix) => {
    s ??= {
      any: handle.prepare(`SELECT 1 FROM stream_sinks s WHERE ${ACTIVE} LIMIT 1`),
      insert: handle.prepare(`INSERT INTO stream_outbox (sink_id, event_id, link_id, owner_id, alias, domain, url, at, click)
        SELECT s.id, ?, l.id, l.owner_id, l.alias, l.domain, l.url, ?, ? FROM links l
        JOIN stream_sinks s ON ${ACTIVE} AND (s.owner_id IS NULL OR s.owner_id = l.owner_id) WHERE l.num = ? ORDER BY s.id`),
    };
    if (s.any.get() === undefined) return;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i] as ClickRow;
      s.insert.run(`${prefix}.${first + i}`, r.at, clickJson(r), r.link_num);
    }
  };
}
