// A small pool of worker threads that draw QR images (qr-worker.ts), with bounded queues: when they
// are full the caller gets 429 rate_limited with a Retry-After, never an unbounded wait.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { DomainError } from "../shared/errors.js";
import type { QrDrawJob, QrJob } from "./qr-render.js";

export type QrReply = { id: number; ok: true; body: Uint8Array } | { id: number; ok: false; error: string };

export interface QrPoolOptions {
  /** Threads drawing at once (default: one core less than the machine has, 1 to 2). */
  workers?: number;
  /** Heavy jobs (PNGs over HEAVY_PX) waiting for a thread, beyond which requests are refused. */
  maxHeavyQueued?: number;
  /** Light jobs (SVGs, small PNGs) waiting for a thread; they go before heavy ones. */
  maxLightQueued?: number;
}

/** PNGs wider than this take tens to hundreds of milliseconds (512: ~30 ms, 2048: ~0.5-0.7 s). */
export const HEAVY_PX = 512;

interface Pending {
  job: QrDrawJob;
  heavy: boolean;
  resolve: (body: Buffer) => void;
  reject: (err: Error) => void;
  startedAt?: number;
}

/** The compiled worker, or (running from the .ts sources) a small entry that loads them through tsx. */
function workerUrl(): URL {
  return new URL(import.meta.url.endsWith(".ts") ? "./qr-worker-tsx.mjs" : "./qr-worker.js", import.meta.url);
}

export function isHeavy(job: Pick<QrJob, "format" | "size">): boolean {
  return job.format === "png" && job.size > HEAVY_PX;
}

export class QrRenderPool {
  private readonly max: number;
  private readonly maxHeavy: number;
  private readonly maxLight: number;
  private readonly idle: Worker[] = [];
  private readonly running = new Map<Worker, Pending & { id: number }>();
  private readonly light: Pending[] = [];
  private readonly heavy: Pending[] = [];
  private spawned = 0;
  private nextId = 1;
  private closed = false;
  /** Running mean of a heavy job's time, for Retry-After. */
  private heavyMs = 700;

  constructor(opts: QrPoolOptions = {}) {
    this.max = Math.max(1, opts.workers ?? Math.min(2, availableParallelism() - 1));
    this.maxHeavy = opts.maxHeavyQueued ?? 4 * this.max;
    this.maxLight = opts.maxLightQueued ?? 64;
  }

  /** Jobs drawing now and waiting (for tests and the benchmark). */
  get load(): { running: number; heavyQueued: number; lightQueued: number } {
    return { running: this.running.size, heavyQueued: this.heavy.length, lightQueued: this.light.length };
  }

  /** Throws rate_limited when a job like this one would find its queue full. */
  checkRoom(job: Pick<QrJob, "format" | "size">): void {
    const heavy = isHeavy(job);
    const queue = heavy ? this.heavy : this.light;
    const free = this.idle.length + (this.max - this.spawned);
    if (free === 0 && queue.length >= (heavy ? this.maxHeavy : this.maxLight)) {
      // Queued heavy jobs ahead, spread over the threads: when one of them could start.
      const wait = heavy ? ((this.heavy.length + 1) * this.heavyMs) / this.max : 1000;
      throw new DomainError("rate_limited", "Too many QR codes are being drawn; retry shortly", undefined, undefined, Math.max(1, Math.ceil(wait / 1000)));
    }
  }

  render(job: QrDrawJob): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error("QR pool closed"));
    this.checkRoom(job);
    const heavy = isHeavy(job);
    const queue = heavy ? this.heavy : this.light;
    return new Promise<Buffer>((resolve, reject) => {
      queue.push({ job, heavy, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed && (this.light.length > 0 || this.heavy.length > 0)) {
      const worker = this.idle.pop() ?? (this.spawned < this.max ? this.spawn() : null);
      if (!worker) return;
      const next = (this.light.shift() ?? this.heavy.shift()) as Pending;
      const id = this.nextId++;
      this.running.set(worker, { ...next, id, startedAt: performance.now() });
      worker.postMessage({ id, ...next.job });
    }
  }

  private spawn(): Worker {
    const worker = new Worker(workerUrl());
    worker.unref(); // never keeps the process alive; close() ends it
    this.spawned++;
    worker.on("message", (r: QrReply) => {
      const p = this.running.get(worker);
      if (!p || p.id !== r.id) return;
      this.running.delete(worker);
      if (p.heavy) this.heavyMs = 0.8 * this.heavyMs + 0.2 * (performance.now() - (p.startedAt ?? 0));
      if (r.ok) p.resolve(Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
      else p.reject(new Error(`QR worker: ${r.error}`));
      this.idle.push(worker);
      this.pump();
    });
    let dead = false;
    const gone = (err: Error) => {
      // A crashed thread fails its job only; a new one is started for the next.
      if (dead) return;
      dead = true;
      this.spawned--;
      const p = this.running.get(worker);
      this.running.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      p?.reject(err);
      this.pump();
    };
    worker.once("error", gone);
    worker.once("exit", (code) => gone(new Error(`QR worker exited (${code})`)));
    return worker;
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new Error("QR pool closed");
    for (const p of [...this.light.splice(0), ...this.heavy.splice(0)]) p.reject(err);
    const workers = [...this.idle.splice(0), ...this.running.keys()];
    for (const p of this.running.values()) p.reject(err);
    this.running.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
