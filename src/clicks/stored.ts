// The "stored" event: what a click writer publishes of the clicks it stored, inside the transaction that
// stores them, so that whatever a listener writes exists exactly when its clicks do (at least once for
// what reads it afterwards: the stream outbox). clicks/ declares it; the listeners are given to the
// writers (src/click-listeners.ts lists them), so clicks/ imports none of their folders.
import { randomUUID } from "node:crypto";
import type SQLite from "better-sqlite3";
import type { Db } from "../storage/db.js";
import type { ClickRow } from "./click-groups.js";
import type { JournalMark } from "./click-buffer.js";

/** Clicks committed together: a chunk of a batch (SQLite), or the batch (PostgreSQL). */
export interface StoredChunk {
  /** The rows as stored, in link order; a deleted link's clicks are not among them. */
  rows: readonly ClickRow[];
  /** The index of rows[0] in its batch (a batch's events are numbered from its first row). */
  first: number;
  /** The batch's event id prefix (eventIdPrefix). */
  prefix: string;
}

export interface StoredListener {
  /** Named in docs and tests. */
  readonly name: string;
  /** SQLite: a step run inside each chunk's transaction on the writer's handle (it prepares its statements on first use). */
  sqlite(handle: SQLite.Database): (chunk: StoredChunk) => void;
  /** PostgreSQL: run inside the batch's transaction, after its clicks are inserted. */
  postgres(trx: Db, chunk: StoredChunk): Promise<void>;
}

/** The writers' listeners, and the entry of a writer thread built with the same (CLICK_WRITER=worker). */
export interface StoredListeners {
  listeners: readonly StoredListener[];
  /** A module whose top level runs ingest-worker.ts's runIngestWorker with `listeners`. */
  thread: URL;
}

/**
 * The ids of a batch's events: "<journal>.<segment>.<row>", unique because a segment is committed once
 * (and the same again if a batch is retried); a batch without a journal gets a random prefix.
 */
export function eventIdPrefix(mark: JournalMark | undefined): string {
  return mark ? `${mark.journal}.${mark.segment}` : randomUUID();
}
