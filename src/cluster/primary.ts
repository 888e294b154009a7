// WORKERS=N: the primary process. It forks N HTTP workers that share one port (node:cluster), restarts
// one that dies, and on SIGTERM drains them all before it exits. On SQLite it also owns the one click
// writer (its workers send it their batches, click-limit counts and fresh reads over IPC) and passes
// every worker's change notifications to the others; on PostgreSQL the workers are instances like any
// other on that database (LISTEN/NOTIFY, row locks) and the primary opens no connection.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { ConfigError } from "../config-error.js";
import { createContext, type AppContext } from "../context.js";
import { createLogger } from "../ops/logging.js";
import { answerCall } from "./remote-writer.js";
import { isClusterMessage, type ClusterMessage } from "./messages.js";

/** A worker that dies is forked again after this (doubling while they die before listening, up to the last). */
const RESTART_MS = [100, 200, 400, 800, 1_600, 3_200, 5_000];

class Primary {
  /** Writer calls of each worker not answered yet: a dead worker's are awaited before its successor replays its journal. */
  private readonly inflight = new Map<number, Set<Promise<unknown>>>();
  private readonly listening = new Set<number>();
  private announced = false;
  private stopping: Promise<void> | null = null;
  private failures = 0;

  constructor(
    private readonly config: Readonly<Config>,
    private readonly log: Logger,
    private readonly ctx: AppContext | null,
  ) {}

  start(): void {
    cluster.setupPrimary({ serialization: "advanced" });
    cluster.on("exit", (w, code, signal) => void this.exited(w, code, signal));
    for (let i = 0; i < this.config.workers; i++) this.fork();
    process.once("SIGTERM", () => void this.stop("SIGTERM"));
    process.once("SIGINT", () => void this.stop("SIGINT"));
  }

  private fork(): void {
    const w = cluster.fork();
    this.inflight.set(w.id, new Set());
    w.on("message", (msg: unknown) => this.heard(w, msg));
  }

  private heard(from: Worker, msg: unknown): void {
    if (!isClusterMessage(msg)) return;
    if (msg.snip === "feed") {
      for (const w of Object.values(cluster.workers ?? {})) if (w && w !== from && w.isConnected()) w.send(msg);
    } else if (msg.snip === "writer" && this.ctx) {
      const calls = this.inflight.get(from.id);
      const done = answerCall(this.ctx.clicks.sink, from.id, msg).then((reply) => {
        if (from.isConnected()) from.send(reply satisfies ClusterMessage, undefined, () => undefined);
      });
      calls?.add(done);
      void done.finally(() => calls?.delete(done));
    } else if (msg.snip === "listening") {
      this.listening.add(from.id);
      this.failures = 0;
      if (this.announced) this.log.info({ worker: from.process.pid }, "a restarted worker is listening");
      else if (this.listening.size >= this.config.workers) {
        this.announced = true;
        // Logged once every worker listens: whoever waits for this line may send requests and signals.
        this.log.info(
          { baseUrl: this.config.origin, listening: msg.url, workers: this.config.workers, database: this.config.database.kind },
          "snip is listening",
        );
      }
    }
  }

  private async exited(w: Worker, code: number | null, signal: string | null): Promise<void> {
    const wasListening = this.listening.delete(w.id);
    // Its batches handed over are written (or failed) before a successor replays its journal: none twice.
    await Promise.allSettled([...(this.inflight.get(w.id) ?? [])]);
    this.inflight.delete(w.id);
    if (this.stopping) return;
    if (!this.announced && !wasListening) {
      // A worker that cannot start (a port in use, a bad database) would fail again: the service does not start.
      this.log.error({ worker: w.process.pid, code, signal }, "a worker exited before it was listening");
      await this.stop("startup failure", 1);
      return;
    }
    const delay = RESTART_MS[Math.min(this.failures, RESTART_MS.length - 1)]!;
    if (!wasListening) this.failures++;
    this.log.warn({ worker: w.process.pid, code, signal, restartInMs: delay }, "a worker died; starting another");
    setTimeout(() => {
      if (!this.stopping) this.fork();
    }, delay);
  }

  /** SIGTERM: every worker drains (stops accepting, answers what it has, writes its clicks), then the writer closes. */
  stop(reason: string, exitCode = 0): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info({ signal: reason }, "shutting down");
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
      const gone = workers.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once("exit", () => resolve()))));
      for (const w of workers) w.process.kill("SIGTERM");
      // Each worker exits by itself within 15 s of its signal (main.ts); past that, what it holds is in its journal.
      const hard = setTimeout(() => workers.forEach((w) => w.isDead() || w.process.kill("SIGKILL")), 20_000 + this.config.drainDelayMs);
      await Promise.all(gone);
      clearTimeout(hard);
      await Promise.allSettled([...this.inflight.values()].flatMap((s) => [...s]));
      await this.ctx?.close();
      process.exit(exitCode);
    })().catch((err: unknown) => {
      this.log.error({ err }, "shutdown failed");
      process.exit(1);
    });
    return this.stopping;
  }
}

export async function runPrimary(config: Readonly<Config>): Promise<void> {
  const log = createLogger(config);
  const db = config.database;
  if (db.kind === "sqlite" && db.file === ":memory:")
    throw new ConfigError("WORKERS", "needs a database file: an in-memory SQLite database cannot be shared by processes");
  // SQLite: migrations, the replay of what a killed run journaled and the roll-ups' recovery happen here,
  // once, before any worker starts; then this context's click writer is the only one.
  const ctx = db.kind === "sqlite" ? await createContext(config, { log, clickJournal: config.clickJournal }) : null;
  await ctx?.start();
  new Primary(config, log, ctx).start();
}
