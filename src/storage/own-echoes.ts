// A change published through the feed comes back to the instance that published it (PostgreSQL's
// NOTIFY reaches its own LISTEN; the in-process feed emits at once). Whoever already applied the change
// locally skips that echo: a late one would drop what a cache loaded after the change (the link's
// first visit), and the next visit would take the slow path again.
import type { ChangeFeed } from "./db.js";

export class OwnEchoes {
  /** Payloads published by this instance whose echo has not come back yet, with how many. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly feed: ChangeFeed) {
    // Notifications may have been lost with the listener: whoever keeps copies reloads them all anyway.
    feed.onResync(() => this.pending.clear());
  }

  /** `stamped`: see ChangeFeed.publish; the echo is then recognised by its payload without the stamp. */
  async publish(channel: string, payload: string, stamped = false): Promise<void> {
    this.pending.set(payload, (this.pending.get(payload) ?? 0) + 1);
    try {
      await this.feed.publish(channel, payload, stamped);
    } catch (err) {
      // No echo will come: another instance's change of the same key must not be taken for it.
      this.consume(payload);
      throw err;
    }
  }

  /**
   * Whether a notification is the echo of this instance's own publish (then counted off). Another
   * instance's change of the same key may be taken for it and the echo for theirs: either way the
   * listeners hear of the key after both changes.
   */
  consume(payload: string): boolean {
    const n = this.pending.get(payload);
    if (n === undefined) return false;
    if (n <= 1) this.pending.delete(payload);
    else this.pending.set(payload, n - 1);
    return true;
  }
}
