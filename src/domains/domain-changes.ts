// Custom-domain state changes (verified, back to pending, deleted): the redirect cache drops every
// link of the hostname, on this instance at once and on the others through the storage change feed.
import type { ChangeFeed } from "../storage/db.js";
import { OwnEchoes } from "../storage/own-echoes.js";

export const DOMAIN_CHANNEL = "domain_changed";

/** May answer a promise: a local change is published once every local listener has settled. */
type Listener = (hostname: string) => void | Promise<void>;

export class DomainChanges {
  private readonly listeners: Listener[] = [];

  /** This instance's own changes are applied at once (publish()); their echo through the feed is skipped. */
  private readonly echoes: OwnEchoes;

  constructor(feed: ChangeFeed) {
    this.echoes = new OwnEchoes(feed);
    feed.subscribe(DOMAIN_CHANNEL, (payload) => {
      if (!this.echoes.consume(payload) && /^[a-z0-9.-]{1,253}$/.test(payload)) void this.emit(payload);
    });
  }

  /** Listeners hear every change, local or from another instance (possibly twice; they must be idempotent). */
  listen(fn: Listener): void {
    this.listeners.push(fn);
  }

  /** This instance's listeners have applied the change when this settles (the answer to the change's request is never stale). */
  async publish(hostname: string): Promise<void> {
    await this.emit(hostname);
    await this.echoes.publish(DOMAIN_CHANNEL, hostname);
  }

  private async emit(hostname: string): Promise<void> {
    await Promise.all(this.listeners.map((fn) => fn(hostname)));
  }
}
