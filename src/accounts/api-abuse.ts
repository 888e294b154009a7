// Throttles for abusive streams of failing external-API requests: per key (failures after
// authentication) and per client address (invalid keys, invalid SCIM tokens). Kept in rate_events, so shared by
// instances.
import { type RateEvents, retryAfterSeconds } from "../storage/rate-events.js";
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";

export const KEY_FAILURES_PER_HOUR = 300;
export const BAD_KEYS_PER_IP = 60;
export const BAD_KEY_WINDOW_MS = 10 * 60_000;
const HOUR = 3_600_000;

export class ApiAbuseThrottle {
  constructor(
    private readonly rate: RateEvents,
    private readonly clock: Clock,
  ) {}

  /** Throws rate_limited when the key has failed too often in the last hour. */
  async checkKey(keyId: string): Promise<void> {
    await this.check(`api:fail:key:${keyId}`, HOUR, KEY_FAILURES_PER_HOUR, "Too many failed requests with this key; slow down");
  }

  async recordKeyFailure(keyId: string): Promise<void> {
    await this.rate.record(`api:fail:key:${keyId}`, this.clock.now());
  }

  /** Throws rate_limited when the address has sent too many invalid keys recently. */
  async checkAddress(ip: string): Promise<void> {
    await this.check(`api:badkey:ip:${ip}`, BAD_KEY_WINDOW_MS, BAD_KEYS_PER_IP, "Too many invalid API keys from this address");
  }

  async recordBadKey(ip: string): Promise<void> {
    await this.rate.record(`api:badkey:ip:${ip}`, this.clock.now());
  }

  /** A wrong SCIM token from `ip`, within the invalid keys' limit (its own count): throws rate_limited past it. */
  async badScimToken(ip: string): Promise<void> {
    await this.check(`scim:badtoken:ip:${ip}`, BAD_KEY_WINDOW_MS, BAD_KEYS_PER_IP, "Too many invalid SCIM tokens from this address");
    await this.rate.record(`scim:badtoken:ip:${ip}`, this.clock.now());
  }

  private async check(bucket: string, windowMs: number, limit: number, message: string): Promise<void> {
    const now = this.clock.now();
    const state = await this.rate.state(bucket, now - windowMs);
    if (state.count >= limit) throw new DomainError("rate_limited", message, undefined, undefined, retryAfterSeconds(state, windowMs, now));
  }
}
