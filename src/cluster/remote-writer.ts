// SQLite with WORKERS=N: one writer stays the rule. Each worker journals its own clicks (before the 302,
// as a single server does) and hands its batches to the primary's click writer over IPC; the primary
// also counts click limits and keeps the held-back roll-ups that fresh reads add, for every worker.
import type { ClickWriter, HeldBack } from "../clicks/click-writer.js";
import type { ClickBatch } from "../clicks/click-buffer.js";
import type { LimitCount } from "../clicks/limit-counts.js";
import { DatabaseUnavailableError } from "../storage/unavailable.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import { isClusterMessage, type WriterCall, type WriterReply } from "./messages.js";

type Call = WriterCall extends infer C ? (C extends unknown ? Omit<C, "id" | "snip"> : never) : never;
type Value = boolean[] | HeldBack | undefined;

/** The worker's side: every call is a message to the primary. */
export class RemoteClickWriter implements ClickWriter {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: Value) => void; reject: (e: Error) => void }>();

  constructor(private readonly send: (msg: unknown) => boolean) {}

  /** The primary's answer (called for every IPC message; ignores the others). */
  hear(msg: unknown): void {
    if (!isClusterMessage(msg) || msg.snip !== "writer-reply") return;
    const w = this.waiting.get(msg.id);
    this.waiting.delete(msg.id);
    if (msg.ok) w?.resolve(msg.value);
    else w?.reject(msg.unavailable ? new DatabaseUnavailableError(`click writer: ${msg.error}`) : new Error(`click writer: ${msg.error}`));
  }

  private call(c: Call): Promise<Value> {
    const id = this.nextId++;
    return new Promise<Value>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // The batch stays in the recorder (and the journal) until this answers: a failure is retried.
      if (!this.send({ ...c, snip: "writer", id })) {
        this.waiting.delete(id);
        reject(new Error("click writer: the primary is gone"));
      }
    });
  }

  async write(batch: ClickBatch): Promise<void> {
    await this.call({ op: "write", batch });
  }

  async countLimited(counts: LimitCount[]): Promise<boolean[]> {
    return (await this.call({ op: "countLimited", counts })) as boolean[];
  }

  async heldBack(linkNums: number[]): Promise<HeldBack> {
    return (await this.call({ op: "heldBack", linkNums })) as HeldBack;
  }

  /**
   * The primary writes the roll-ups on its own schedule (CLICK_ROLLUP_MS, stretched under load) and when it
   * stops: one schedule for the one writer, not one more per worker. Reads add what is held back meanwhile.
   */
  async flushRollups(): Promise<void> {}

  /** The primary folded in what the roll-ups missed before it started its workers; a replay goes through write(). */
  async recover(): Promise<void> {}

  /** The writer is the primary's: it closes it once every worker is gone. */
  async close(): Promise<void> {}
}

/**
 * The primary's side: runs a call of worker `worker` (its cluster id) on its own writer. Batch numbers are
 * each process's own, and SQLite's writer resumes a batch it sees again (a retry) after its last chunk:
 * they are made the worker's (id × 2^32 + its number), so that two workers' batch 7 are two batches.
 */
export async function answerCall(writer: ClickWriter, worker: number, call: WriterCall): Promise<WriterReply> {
  try {
    let value: Value;
    if (call.op === "write") await writer.write({ ...call.batch, seq: worker * 2 ** 32 + call.batch.seq });
    else if (call.op === "countLimited") {
      if (!writer.countLimited) throw new Error("this click writer does not count click limits");
      value = await writer.countLimited(call.counts);
    } else if (call.op === "heldBack") {
      if (!writer.heldBack) throw new Error("this click writer holds no roll-ups back");
      value = await writer.heldBack(call.linkNums);
    }
    return { snip: "writer-reply", id: call.id, ok: true, value };
  } catch (err) {
    return { snip: "writer-reply", id: call.id, ok: false, error: err instanceof Error ? err.message : String(err), unavailable: isDatabaseUnavailable(err) };
  }
}
