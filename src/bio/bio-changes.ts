// Bio page change notifications (create, edit, delete): the page cache drops its copy of the host's slug, on this
// instance at once and on the others through the storage change feed (as links/changes.ts does for links).
import type { ChangeFeed } from "../storage/db.js";
import { OwnEchoes } from "../storage/own-echoes.js";

export const BIO_CHANNEL = "bio_changed";

export interface BioKey {
  domain: string;
  slug: string;
}

type Listener = (key: BioKey) => void;

export class BioChanges {
  private readonly listeners: Listener[] = [];
  private readonly echoes: OwnEchoes;

  constructor(private readonly feed: ChangeFeed) {
    this.echoes = new OwnEchoes(feed);
    feed.subscribe(BIO_CHANNEL, (payload) => {
      if (this.echoes.consume(payload)) return;
      const key = parseKey(payload);
      if (key) this.emit(key);
    });
  }

  /** Listeners hear every change, local or from another instance (possibly twice; they must be idempotent). */
  listen(fn: Listener): void {
    this.listeners.push(fn);
  }

  /** `fn` runs when changes made on other instances may have been missed (the feed reconnected). */
  onMissed(fn: () => void): void {
    this.feed.onResync(fn);
  }

  async publish(keys: BioKey[]): Promise<void> {
    for (const k of keys) this.emit(k);
    await Promise.all(keys.map((k) => this.echoes.publish(BIO_CHANNEL, JSON.stringify([k.domain, k.slug]))));
  }

  private emit(key: BioKey): void {
    for (const fn of this.listeners) fn(key);
  }
}

function parseKey(payload: string): BioKey | null {
  try {
    const v: unknown = JSON.parse(payload);
    if (Array.isArray(v) && typeof v[0] === "string" && typeof v[1] === "string") return { domain: v[0], slug: v[1] };
  } catch {
    /* ignore foreign payloads */
  }
  return null;
}
