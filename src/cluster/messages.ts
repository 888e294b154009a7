// What the primary and its workers say to each other over the cluster's IPC channel (WORKERS=N, docs/scaling.md).
import type { HeldBack } from "../clicks/click-writer.js";
import type { ClickBatch } from "../clicks/click-buffer.js";
import type { LimitCount } from "../clicks/limit-counts.js";

/** A worker's change published (SQLite): the primary passes it to every other worker. */
export interface FeedMessage {
  snip: "feed";
  channel: string;
  payload: string;
}

/** A call of the primary's click writer (SQLite: the one writer), answered by a WriterReply of the same id. */
export type WriterCall =
  | { snip: "writer"; id: number; op: "write"; batch: ClickBatch }
  | { snip: "writer"; id: number; op: "countLimited"; counts: LimitCount[] }
  | { snip: "writer"; id: number; op: "heldBack"; linkNums: number[] };

export type WriterReply =
  | { snip: "writer-reply"; id: number; ok: true; value?: boolean[] | HeldBack }
  | { snip: "writer-reply"; id: number; ok: false; error: string; unavailable: boolean };

/** A worker listens (its server is up and its journal replayed). */
export interface ListeningMessage {
  snip: "listening";
  url: string;
}

export type ClusterMessage = FeedMessage | WriterCall | WriterReply | ListeningMessage;

/** Whether an IPC message is one of ours (the channel also carries node:cluster's own). */
export function isClusterMessage(msg: unknown): msg is ClusterMessage {
  return typeof msg === "object" && msg !== null && typeof (msg as { snip?: unknown }).snip === "string";
}
