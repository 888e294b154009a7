// What bench/import.ts watches while an import runs: the server's memory (VmRSS and VmHWM from /proc,
// every second) and redirects of links already imported, sent at a steady rate, each checked for a 302 to
// the link's destination.
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { BROWSER_HEADERS } from "./load.js";

export interface RssSample {
  /** Seconds since the sampler started. */
  t: number;
  rss: number;
  hwm: number;
}

function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's resident memory every `everyMs` until stop(). */
export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly t0 = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 1_000,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const rss = statusKb(this.pid, "VmRSS");
    const hwm = statusKb(this.pid, "VmHWM");
    if (rss !== null && hwm !== null) this.samples.push({ t: (performance.now() - this.t0) / 1000, rss, hwm });
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  get peak(): number {
    return Math.max(0, ...this.samples.map((s) => s.hwm));
  }

  /** The sample nearest to fraction f (0..1) of the run. */
  at(f: number): RssSample | undefined {
    return this.samples[Math.min(this.samples.length - 1, Math.round(f * (this.samples.length - 1)))];
  }
}

export interface RedirectTally {
  sent: number;
  seconds: number;
  answered: number;
  /** 302 with the expected Location. */
  ok: number;
  /** Anything else: another status, a wrong Location, a socket error (first few kept). */
  errors: number;
  errorSamples: string[];
  p50: number;
  p99: number;
  max: number;
}

/** The link a redirect may ask for: its path and the Location its 302 must carry; null when none is imported yet. */
export type PickLink = () => { path: string; location: string } | null;

/**
 * Sends `rate` redirects per second (paced every 10 ms, at most `maxInFlight` outstanding: beyond that a
 * tick's requests wait for the next tick, and a shortfall shows as sent < rate × seconds) until stop().
 */
export class PacedRedirects {
  private readonly pool: Pool;
  private readonly latencies: number[] = [];
  private readonly tally = { sent: 0, answered: 0, ok: 0, errors: 0, errorSamples: [] as string[] };
  private readonly timer: NodeJS.Timeout;
  private startAt: number | null = null;
  private inFlight = 0;
  private done: (() => void) | null = null;

  constructor(
    origin: string,
    private readonly rate: number,
    private readonly pick: PickLink,
    private readonly maxInFlight = 100,
  ) {
    this.pool = new Pool(origin, { connections: 8, pipelining: 1 });
    this.timer = setInterval(() => this.tick(), 10);
  }

  private tick(): void {
    // The clock starts with the first link imported: nothing is owed for the time before.
    if (this.startAt === null) {
      if (!this.pick()) return;
      this.startAt = performance.now();
    }
    const due = Math.floor(((performance.now() - this.startAt) / 1000) * this.rate) - this.tally.sent;
    for (let k = 0; k < due && this.inFlight < this.maxInFlight; k++) {
      const link = this.pick();
      if (link) void this.send(link.path, link.location);
    }
  }

  /** Seconds since the first redirect was due. */
  get seconds(): number {
    return this.startAt === null ? 0 : (performance.now() - this.startAt) / 1000;
  }

  private async send(path: string, location: string): Promise<void> {
    this.tally.sent++;
    this.inFlight++;
    const t = performance.now();
    try {
      const res = await this.pool.request({ method: "GET", path, headers: BROWSER_HEADERS });
      await res.body.dump();
      this.latencies.push(performance.now() - t);
      if (res.statusCode === 302 && res.headers.location === location) this.tally.ok++;
      else this.fail(`${path}: ${res.statusCode} ${String(res.headers.location ?? "")}`);
    } catch (err) {
      this.fail(`${path}: ${(err as Error).message}`);
    } finally {
      this.tally.answered++;
      this.inFlight--;
      if (this.inFlight === 0) this.done?.();
    }
  }

  private fail(what: string): void {
    this.tally.errors++;
    if (this.tally.errorSamples.length < 5) this.tally.errorSamples.push(what);
  }

  /** Stops sending, waits for the answers outstanding, closes the connections. */
  async stop(): Promise<RedirectTally> {
    clearInterval(this.timer);
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.done = resolve));
    await this.pool.close();
    const s = [...this.latencies].sort((a, b) => a - b);
    const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
    return { ...this.tally, seconds: this.seconds, p50: pct(50), p99: pct(99), max: s[s.length - 1] ?? 0 };
  }
}
