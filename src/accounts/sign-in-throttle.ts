// The sign-in throttles per address that every way in shares: the password form's failures and a passkey's
// refused answers count in one bucket (50 in 15 minutes), and each passwordless start, which keeps a
// challenge row for 5 minutes, is counted apart (100 in 15 minutes), exactly under concurrency.
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import { type RateEvents, type WindowState, retryAfterSeconds } from "../storage/rate-events.js";

export const LOGIN_WINDOW = 15 * 60_000;
export const LOGIN_FAILURES_PER_IP = 50;
export const PASSWORDLESS_STARTS_PER_IP = 100;

export const failuresBucket = (ip: string) => `login:ip:${ip}`;

export function rateLimited(message: string, state: WindowState, windowMs: number, now: number): DomainError {
  return new DomainError("rate_limited", message, undefined, undefined, retryAfterSeconds(state, windowMs, now));
}

export class PasswordlessThrottle {
  constructor(
    private readonly rate: RateEvents,
    private readonly clock: Clock,
  ) {}

  /** A passwordless sign-in starting from `ip`: refused while the address's failures are full, then counted. */
  async start(ip: string): Promise<void> {
    await this.refuseFailing(ip);
    const now = this.clock.now();
    const slot = await this.rate.take(`passkey-start:ip:${ip}`, now - LOGIN_WINDOW, PASSWORDLESS_STARTS_PER_IP, now);
    if ("full" in slot) throw rateLimited("Too many passkey sign-ins started from this address", slot.full, LOGIN_WINDOW, now);
  }

  /** A passwordless answer from `ip`, checked by `check`: a refusal (DomainError) counts among the address's failures. */
  async answer<T>(ip: string, check: () => Promise<T>): Promise<T> {
    await this.refuseFailing(ip);
    try {
      return await check();
    } catch (e) {
      if (e instanceof DomainError) await this.rate.record(failuresBucket(ip), this.clock.now());
      throw e;
    }
  }

  private async refuseFailing(ip: string): Promise<void> {
    const now = this.clock.now();
    const state = await this.rate.state(failuresBucket(ip), now - LOGIN_WINDOW);
    if (state.count >= LOGIN_FAILURES_PER_IP) throw rateLimited("Too many failed sign-ins from this address", state, LOGIN_WINDOW, now);
  }
}
