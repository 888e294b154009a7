// One open live feed (GET /api/analytics/live): Server-Sent Events written to a sink, at most
// `perSecond` click events a second (the rest counted and reported as `event: skipped`), a comment
// when idle, and ended when its reader is too slow to take what is written.
import type { LiveClick, LiveConversion } from "../contract/live.js";

/** Where a stream's text goes: the response body (a PassThrough the route sends). */
export interface LiveSink {
  write(chunk: string): boolean;
  end(): void;
  /** Bytes written but not yet taken by the reader. */
  readonly writableLength: number;
}

export interface LiveStreamLimits {
  /** Click events a second, at most; the others are counted. */
  perSecond: number;
  /** A comment after this long without a write, so proxies and browsers keep the connection. */
  heartbeatMs: number;
  /** Bytes waiting for a slow reader before the stream is ended. */
  maxBufferedBytes: number;
}

/** The browser's wait before it reconnects after the stream ends (the SSE `retry` field). */
const RETRY_MS = 3_000;

export class LiveStream {
  private closed = false;
  /** Until start(): clicks that came while the backlog was read, sent after it. */
  private held: LiveClick[] | null = [];
  /** Until start(): conversions that came meanwhile. */
  private heldConversions: LiveConversion[] = [];
  private windowStart = 0;
  private sentInWindow = 0;
  private skipped = 0;
  private lastWrite: number;

  constructor(
    readonly userId: string,
    readonly ownerId: string,
    private readonly sink: LiveSink,
    private readonly limits: LiveStreamLimits,
    private readonly now: () => number,
    private readonly onClose: (s: LiveStream) => void,
  ) {
    this.lastWrite = now();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends the backlog (oldest first), then the clicks that came meanwhile and are not in it. */
  start(backlog: LiveClick[]): void {
    if (this.closed) return;
    const held = this.held ?? [];
    this.held = null;
    this.write(`retry: ${RETRY_MS}\n\n`);
    const seen = new Set(backlog.map(keyOf));
    // The backlog is history: the rate cap applies to what is live.
    for (const click of backlog) this.write(eventText("click", click));
    for (const click of held) if (!seen.has(keyOf(click))) this.click(click);
    for (const c of this.heldConversions) this.conversion(c);
    this.heldConversions = [];
  }

  /** A lead or sale, sent at once (they are few: no share per second). */
  conversion(event: LiveConversion): void {
    if (this.closed) return;
    if (this.held) {
      if (this.heldConversions.length < this.limits.perSecond) this.heldConversions.push(event);
      return;
    }
    this.write(eventText("conversion", event));
  }

  /** One live click, or one more counted as skipped when the second's share is sent. */
  click(event: LiveClick): void {
    if (this.closed) return;
    if (this.held) {
      if (this.held.length < this.limits.perSecond) this.held.push(event);
      else this.skipped++;
      return;
    }
    const now = this.now();
    if (now - this.windowStart >= 1000) this.newWindow(now);
    if (this.sentInWindow < this.limits.perSecond) {
      this.sentInWindow++;
      this.write(eventText("click", event));
    } else this.skipped++;
  }

  /** Clicks another instance (or this one's publisher) already left out for this owner. */
  addSkipped(count: number): void {
    if (!this.closed) this.skipped += count;
  }

  /** Once a second: reports what was skipped in a finished second; a comment when idle. */
  tick(): void {
    if (this.closed || this.held) return;
    const now = this.now();
    if (now - this.windowStart >= 1000) this.newWindow(now);
    if (now - this.lastWrite >= this.limits.heartbeatMs) this.write(": keep-alive\n\n");
  }

  private newWindow(now: number): void {
    if (this.skipped > 0) {
      this.write(`event: skipped\ndata: ${JSON.stringify({ count: this.skipped })}\n\n`);
      this.skipped = 0;
    }
    this.windowStart = now;
    this.sentInWindow = 0;
  }

  private write(text: string): void {
    if (this.closed) return;
    this.lastWrite = this.now();
    this.sink.write(text);
    // A reader that stopped reading: end the stream rather than keep its events in memory.
    if (this.sink.writableLength > this.limits.maxBufferedBytes) this.close();
  }

  /** Ends the response (shutdown, lost access, the reader left); idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.held = null;
    this.sink.end();
    this.onClose(this);
  }
}

/** A click's identity across the backlog and the live events (a click served and read back). */
function keyOf(c: LiveClick): string {
  return `${c.link_id}|${c.at}|${c.device}|${c.browser}|${c.referrer}`;
}

export function eventText(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
