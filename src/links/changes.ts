// Link change notifications (edit, delete, create): the redirect cache listens to drop stale entries,
// on this instance at once and on the others through the storage change feed.
import type { ChangeFeed } from "../storage/db.js";
import { OwnEchoes } from "../storage/own-echoes.js";
import { type Snapshot, parseSnapshot } from "../storage/pg-snapshot.js";

export const LINK_CHANNEL = "link_changed";

export interface LinkKey {
  domain: string;
  alias: string;
}

/**
 * `after`: on PostgreSQL, a snapshot taken after the change committed (a copy read with a snapshot that
 * covers it already holds the change); null when unknown (this instance's own change, heard at once).
 */
type Listener = (key: LinkKey, after: Snapshot | null) => void;

export class LinkChanges {
  private readonly listeners: Listener[] = [];
  /** This instance's own changes are heard at once (publish()); their echo through the feed is skipped. */
  private readonly echoes: OwnEchoes;

  constructor(private readonly feed: ChangeFeed) {
    this.echoes = new OwnEchoes(feed);
    feed.subscribe(LINK_CHANNEL, (stampedPayload) => {
      const space = stampedPayload.lastIndexOf(" ");
      const after = space < 0 ? null : parseSnapshot(stampedPayload.slice(space + 1));
      const payload = after ? stampedPayload.slice(0, space) : stampedPayload;
      if (this.echoes.consume(payload)) return;
      const key = parseKey(payload);
      if (key) this.emit(key, after);
    });
  }

  /** Listeners hear every change, local or from another instance (possibly twice; they must be idempotent). */
  listen(fn: Listener): void {
    this.listeners.push(fn);
  }

  /** `fn` runs when changes made on other instances may have been missed (the feed reconnected): drop every copy kept. */
  onMissed(fn: () => void): void {
    this.feed.onResync(fn);
  }

  async publish(keys: LinkKey[]): Promise<void> {
    for (const k of keys) this.emit(k, null);
    await Promise.all(keys.map((k) => this.echoes.publish(LINK_CHANNEL, JSON.stringify([k.domain, k.alias]), true)));
  }

  private emit(key: LinkKey, after: Snapshot | null): void {
    for (const fn of this.listeners) fn(key, after);
  }
}

function parseKey(payload: string): LinkKey | null {
  try {
    const v: unknown = JSON.parse(payload);
    if (Array.isArray(v) && typeof v[0] === "string" && typeof v[1] === "string") return { domain: v[0], alias: v[1] };
  } catch {
    /* ignore foreign payloads */
  }
  return null;
}
