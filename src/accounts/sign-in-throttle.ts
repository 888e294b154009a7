// The sign-in throttles per address that every way in shares: the password form's failures and a passkey's
// refused answers count in one bucket (50 in 15 minutes), and each passwordless start, which keeps a
// challenge row for 5 minutes, is counted apart (100 in 15 minutes), exactly under concurrency.
import type { Clock } from "../shared/clock.js";
import { DomainError } from "../shared/errors.js";
import { type Limit, type RateEvents, type Slot, type WindowState, retryAfterSeconds } from "../storage/rate-events.js";

export const LOGIN_WINDOW = 15 * 60_000;
export const LOGIN_FAILURES_PER_IP = 50;
export const PASSWORDLESS_STARTS_PER_IP = 100;

export const failuresBucket = (ip: string) => `login:ip:${ip}`;

export function rateLimited(message: string, state: WindowState, windowMs: number, now: number): DomainError {
  return new DomainError("rate_limited", message, undefined, undefined, retryAfterSeconds(state, windowMs, now));
}

/** A window and what its refusal says. */
export interface Throttle extends Limit {
  message: string;
}

/**
 * A slot in every window, checked and counted in one step (RateEvents.attempt), so a burst of concurrent
 * attempts gets exactly the limit; else rate_limited with the first full window's message and Retry-After.
 * The caller releases the slot when the attempt is not to count (a right password, a code that matched).
 */
export async function reserve(rate: RateEvents, at: number, ...windows: Throttle[]): Promise<Slot> {
  const a = await rate.attempt(windows, at);
  if ("full" in a) throw new DomainError("rate_limited", a.full.limit.message, undefined, undefined, a.full.retryAfter);
  return a.slot;
}

/** Runs `attempt` on a taken slot: kept when `failed` says the outcome counts, released otherwise (an error included). */
export async function counted<T>(slot: Slot, attempt: () => Promise<T>, failed: (outcome: T) => boolean): Promise<T> {
  let outcome: T;
  try {
    outcome = await attempt();
  } catch (e) {
    await slot.release();
    throw e;
  }
  if (!failed(outcome)) await slot.release();
  return outcome;
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

  /**
   * A passwordless answer from `ip`, checked by `check`: it takes a slot of the address's failures first,
   * given back when the answer is accepted and kept when it is refused (DomainError).
   */
  async answer<T>(ip: string, check: () => Promise<T>): Promise<T> {
    const slot = await reserve(this.rate, this.clock.now(), addressFailures(ip));
    try {
      const accepted = await check();
      await slot.release();
      return accepted;
    } catch (e) {
      if (!(e instanceof DomainError)) await slot.release();
      throw e;
    }
  }

  private async refuseFailing(ip: string): Promise<void> {
    const now = this.clock.now();
    const state = await this.rate.state(failuresBucket(ip), now - LOGIN_WINDOW);
    if (state.count >= LOGIN_FAILURES_PER_IP) throw rateLimited("Too many failed sign-ins from this address", state, LOGIN_WINDOW, now);
  }
}

/** The address's failures window, shared by the password form and passkey answers. */
export function addressFailures(ip: string, message = "Too many failed sign-ins from this address"): Throttle {
  return { bucket: failuresBucket(ip), windowMs: LOGIN_WINDOW, limit: LOGIN_FAILURES_PER_IP, message };
}
