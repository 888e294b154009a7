// The main thread's side of the click writer thread (ingest-worker.ts, either engine): a ClickWriter whose every call is a message to it.
import { Worker } from "node:worker_threads";
import type { DatabaseConfig } from "../config.js";
import type { ClickWriter, HeldBack } from "./click-writer.js";
import { type ClickBatch, type PostedBatch, postedBatch } from "./click-buffer.js";
import type { CountMany, LimitCount } from "./limit-counts.js";
import { DatabaseUnavailableError } from "../storage/unavailable.js";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface IngestSetup {
  /** The database the worker writes to, on connections of its own. */
  database: DatabaseConfig;
  geoipDb: string | null;
}

export type IngestRequest =
  | { id: number; op: "write"; batches: PostedBatch[] }
  | { id: number; op: "countLimited"; counts: LimitCount[] }
  | { id: number; op: "heldBack"; linkNums: number[] | null }
  | { id: number; op: "flushRollups" | "recover" | "close" };

/** `value` carries countLimited's and heldBack's answers; `unavailable`, a failure for want of the database (isDatabaseUnavailable). */
export type IngestReply = { id: number; ok: true; value?: boolean[] | HeldBack } | { id: number; ok: false; error: string; unavailable: boolean };

export class WorkerClickWriter implements ClickWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: boolean[] | HeldBack | undefined) => void; reject: (e: Error) => void }>();
  private failed: Error | null = null;

  /** SQLite only: the worker is the one writer, so click limits are counted there too (PostgreSQL: on the main pool). */
  readonly countLimited?: CountMany;
  /** SQLite only: the roll-ups held back live in the worker. */
  readonly heldBack?: (linkNums: number[] | null) => Promise<HeldBack>;
  /** PostgreSQL only: several batches in one transaction (ClickWriter.writeMany). */
  readonly writeMany?: (batches: ClickBatch[]) => Promise<void>;

  /** `thread`: the thread's entry, which runs ingest-worker.ts with the writers' listeners (StoredListeners.thread). */
  constructor(setup: IngestSetup, thread: URL) {
    this.worker = new Worker(thread, { workerData: setup });
    if (setup.database.kind === "sqlite") {
      this.countLimited = async (counts) => (await this.call({ op: "countLimited", counts })) as boolean[];
      this.heldBack = async (linkNums) => (await this.call({ op: "heldBack", linkNums })) as HeldBack;
    } else {
      this.writeMany = async (batches) => void (await this.post(batches));
    }
    this.worker.on("message", (r: IngestReply) => {
      const w = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      if (r.ok) w?.resolve(r.value);
      else w?.reject(r.unavailable ? new DatabaseUnavailableError(`click writer: ${r.error}`) : new Error(`click writer: ${r.error}`));
    });
    this.worker.on("error", (err) => this.fail(err));
    this.worker.on("exit", (code) => this.fail(new Error(`click writer worker exited (${code})`)));
  }

  private fail(err: Error): void {
    this.failed = err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  private call(msg: DistributiveOmit<IngestRequest, "id">, transfer: ArrayBuffer[] = []): Promise<boolean[] | HeldBack | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise<boolean[] | HeldBack | undefined>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  /** Copies of the batches go to the worker: each one block of numbers (moved), its distinct strings and its link ids as one string (postedBatch). */
  private post(batches: ClickBatch[]): Promise<unknown> {
    const posted = batches.map(postedBatch);
    return this.call(
      { op: "write", batches: posted.map((p) => p.batch) },
      posted.map((p) => p.transfer),
    );
  }

  /** The recorder keeps the batch for a retry: the worker gets a copy. */
  async write(batch: ClickBatch): Promise<void> {
    await this.post([batch]);
  }

  async flushRollups(): Promise<void> {
    await this.call({ op: "flushRollups" });
  }

  async recover(): Promise<void> {
    await this.call({ op: "recover" });
  }

  /** Writes the held-back roll-ups, closes the worker's connection and ends the thread. */
  async close(): Promise<void> {
    if (!this.failed) await this.call({ op: "close" });
    this.failed ??= new Error("click writer closed");
    await this.worker.terminate();
  }
}
