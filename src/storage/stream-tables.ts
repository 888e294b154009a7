// Tables of the click stream (migration 031, docs/stream.md): the brokers clicks are published to (the
// operator's, from STREAM_* settings, and accounts' own) and the outbox of events not yet confirmed by them.
import type { Generated, Selectable } from "kysely";

export interface StreamSinksTable {
  /** "env:<kind>" for the operator's broker of each kind (contract/broker-kinds.ts); an id for an account's. */
  id: string;
  /** null: the operator's broker (every click); else the account whose clicks it gets. */
  owner_id: string | null;
  /** A BrokerKind of contract/broker-kinds.ts (stored as text: a kind removed from the registry leaves its rows readable). */
  kind: string;
  name: string;
  /** The broker URL with its password replaced by "***" (what the API shows); "" for the operator's. */
  url: string;
  /** The whole URL sealed (streams/stream-urls.ts), bound to the sink's id; null for the operator's. */
  url_enc: string | null;
  active: number;
  /** 1 while the outbox holds STREAM_OUTBOX_MAX events for it: new clicks are not queued for it. */
  full: Generated<number>;
  /** The instance publishing this sink's events, and until when (epoch ms): one publisher per sink. */
  lease_owner: string | null;
  lease_until: Generated<number>;
  delivered: Generated<number>;
  failed: Generated<number>;
  last_ok_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface StreamOutboxTable {
  id: Generated<number>;
  sink_id: string;
  /** The click's event id, the same for every sink (consumers de-duplicate by it). */
  event_id: string;
  link_id: string;
  owner_id: string | null;
  alias: string;
  domain: string;
  url: string;
  /** The click's time (epoch ms). */
  at: number;
  /** The event's "click" object, JSON ("" on a batch row). */
  click: string;
  /** Events in the row: 1 for a row of one event (its own columns), a batch's count where `events` is set. */
  n: Generated<number>;
  /** A batch's events for this sink, JSON in streams/outbox.ts's compact form (decodeBatch); null: the row is one event. */
  events: string | null;
}

export interface StreamTables {
  stream_sinks: StreamSinksTable;
  stream_outbox: StreamOutboxTable;
}

export type StreamSinkRow = Selectable<StreamSinksTable>;
export type StreamOutboxRow = Selectable<StreamOutboxTable>;
