// The checker's manners toward each destination host: at most `concurrency` requests in flight to one host and
// at most `rate` started per second, whatever the number of links pointing there (docs/health.md, Limits).
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

interface HostState {
  active: number;
  waiters: Array<() => void>;
  /** performance.now() before which the next request to the host may not start. */
  nextAt: number;
}

export class HostGate {
  private readonly hosts = new Map<string, HostState>();
  private readonly spacingMs: number;

  constructor(
    private readonly concurrency: number,
    rate: number,
  ) {
    this.spacingMs = 1000 / rate;
  }

  /** Waits for a free place and the host's next start time; the answer releases the place. An aborted `signal` ends
   * the wait with its reason, holding no place. */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let h = this.hosts.get(host);
    if (!h) this.hosts.set(host, (h = { active: 0, waiters: [], nextAt: 0 }));
    const state = h;
    while (state.active >= this.concurrency) await this.queue(state, signal);
    state.active++;
    const release = this.releaser(host, state);
    const now = performance.now();
    const start = Math.max(now, state.nextAt);
    state.nextAt = start + this.spacingMs;
    if (start > now) {
      try {
        await sleep(start - now, undefined, signal ? { signal } : undefined);
      } catch (e) {
        release();
        throw signal?.aborted ? (signal.reason as Error) : e;
      }
    }
    return release;
  }

  /** A place in the host's queue, woken by a release, or left when `signal` aborts. */
  private queue(state: HostState, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        state.waiters.splice(state.waiters.indexOf(wake), 1);
        reject(signal!.reason as Error);
      };
      state.waiters.push(wake);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }

  private releaser(host: string, state: HostState): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.active--;
      const next = state.waiters.shift();
      if (next) next();
      else if (state.active === 0 && state.nextAt <= performance.now()) this.hosts.delete(host);
    };
  }

  /** Hosts with a request in flight or waiting (tests; metrics). */
  get busyHosts(): number {
    return this.hosts.size;
  }
}
