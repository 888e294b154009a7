// 404 bursts per client address (alias enumeration): counted in this instance's memory per minute, so
// nothing is written per 404; an address past the limit gets 429 on every short link until the minute ends.
import type { Clock } from "../shared/clock.js";

export const NOT_FOUND_WINDOW_MS = 60_000;
/**
 * Addresses counted per window. Past it, new addresses are not counted until the next window (the ones
 * counted so far still are): a flood from many addresses cannot grow the map without bound.
 */
export const MAX_COUNTED_ADDRESSES = 50_000;

export class NotFoundThrottle {
  /** 404s per address in the current window. */
  private counts = new Map<string, number>();
  /** Addresses over the limit in the current window: what the redirect path asks, empty nearly always. */
  private readonly throttled = new Set<string>();
  private windowEnd = 0;

  constructor(
    /** NOT_FOUND_PER_MINUTE (at least 1; 0 means no throttle object at all). */
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly maxAddresses = MAX_COUNTED_ADDRESSES,
  ) {}

  /** True when some address is throttled: the one check an untroubled redirect pays. */
  get active(): boolean {
    return this.throttled.size !== 0;
  }

  /** Seconds until `ip` may visit short links again, or 0. */
  retryAfter(ip: string): number {
    if (this.throttled.size === 0) return 0;
    const now = this.clock.now();
    if (now >= this.windowEnd) {
      this.reset(now);
      return 0;
    }
    return this.throttled.has(ip) ? Math.max(1, Math.ceil((this.windowEnd - now) / 1000)) : 0;
  }

  /** One 404 answered to `ip`. */
  notFound(ip: string): void {
    const now = this.clock.now();
    if (now >= this.windowEnd) this.reset(now);
    const n = this.counts.get(ip);
    if (n === undefined) {
      if (this.counts.size >= this.maxAddresses) return;
      this.counts.set(ip, 1);
      return;
    }
    this.counts.set(ip, n + 1);
    if (n + 1 > this.limit) this.throttled.add(ip);
  }

  /** A new window: every count starts again (windows are aligned to the clock's minutes). */
  private reset(now: number): void {
    this.counts = new Map();
    this.throttled.clear();
    this.windowEnd = now - (now % NOT_FOUND_WINDOW_MS) + NOT_FOUND_WINDOW_MS;
  }
}
