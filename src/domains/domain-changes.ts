// Custom-domain state changes (verified, back to pending, deleted): the redirect cache drops every
// link of the hostname, on this instance at once and on the others through the storage change feed.
import type { ChangeFeed } from "../storage/db.js";

export const DOMAIN_CHANNEL = "domain_changed";

type Listener = (hostname: string) => void;

export class DomainChanges {
  private readonly listeners: Listener[] = [];

  constructor(private readonly feed: ChangeFeed) {
    feed.subscribe(DOMAIN_CHANNEL, (payload) => {
      if (/^[a-z0-9.-]{1,253}$/.test(payload)) this.emit(payload);
    });
  }

  /** Listeners hear every change, local or from another instance (possibly twice; they must be idempotent). */
  listen(fn: Listener): void {
    this.listeners.push(fn);
  }

  async publish(hostname: string): Promise<void> {
    this.emit(hostname);
    await this.feed.publish(DOMAIN_CHANNEL, hostname);
  }

  private emit(hostname: string): void {
    for (const fn of this.listeners) fn(hostname);
  }
}
