// Per-address bound on QR drawing (renders that miss the cache): a token bucket per client address,
// in memory, so one address cannot keep the drawing threads busy for everyone else.
import { LRUCache } from "lru-cache";
import { DomainError } from "../shared/errors.js";

export interface ThrottleOptions {
  /** Units an address may spend at once. */
  capacity: number;
  /** Units given back per second. */
  perSecond: number;
  now: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class AddressThrottle {
  // Addresses idle long enough to be full again need no entry; the bound keeps memory fixed under a scan.
  private readonly buckets = new LRUCache<string, Bucket>({ max: 50_000 });

  constructor(private readonly opts: ThrottleOptions) {}

  private current(address: string): Bucket {
    const now = this.opts.now();
    const b = this.buckets.get(address);
    if (!b) return { tokens: this.opts.capacity, at: now };
    return { tokens: Math.min(this.opts.capacity, b.tokens + ((now - b.at) / 1000) * this.opts.perSecond), at: now };
  }

  /** Spends `cost` units of the address, or throws rate_limited with the seconds until it could. */
  take(address: string, cost: number, message: string): void {
    const b = this.current(address);
    if (b.tokens < cost) {
      throw new DomainError("rate_limited", message, undefined, undefined, Math.max(1, Math.ceil((cost - b.tokens) / this.opts.perSecond)));
    }
    this.buckets.set(address, { tokens: b.tokens - cost, at: b.at });
  }

  /** Gives back units spent on work that was not done (the drawing threads were full). */
  refund(address: string, cost: number): void {
    const b = this.current(address);
    this.buckets.set(address, { tokens: Math.min(this.opts.capacity, b.tokens + cost), at: b.at });
  }
}
