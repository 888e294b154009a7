// A worker's change feed on SQLite with WORKERS=N: heard at once in this process (as the in-process feed)
// and sent to the primary, which passes it to every other worker: a cached link dropped everywhere
// within milliseconds of an edit, the live feed and webhook owners shared as across PostgreSQL instances.
import { EventEmitter } from "node:events";
import type { ChangeFeed } from "../storage/db.js";
import { isClusterMessage } from "./messages.js";

export class ClusterFeed implements ChangeFeed {
  readonly shared = true;
  private readonly local = new EventEmitter();

  constructor(private readonly send: (msg: unknown) => void) {
    this.local.setMaxListeners(0);
  }

  /** The primary's relay of another worker's change (called for every IPC message; ignores the others). */
  hear(msg: unknown): void {
    if (isClusterMessage(msg) && msg.snip === "feed") this.local.emit(msg.channel, msg.payload);
  }

  async publish(channel: string, payload: string): Promise<void> {
    this.local.emit(channel, payload);
    this.send({ snip: "feed", channel, payload });
  }

  subscribe(channel: string, fn: (payload: string) => void): void {
    this.local.on(channel, fn);
  }

  /** IPC to a live primary loses nothing; a primary that is gone ends its workers. */
  onResync(): void {}

  async listened(): Promise<void> {}
}
