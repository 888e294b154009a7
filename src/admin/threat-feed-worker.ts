// Worker thread that parses one threat feed (threat-feed-csv.ts) from the bytes threat-feed.ts posts it, one
// chunk at a time, each acknowledged once taken: a million rows' records and strings are garbage of this
// thread's heap, which ends with it, and the keys reach the main thread as FeedTables' transferred arrays.
import { PassThrough } from "node:stream";
import { parentPort, workerData } from "node:worker_threads";
import { lowerThreadPriority } from "../shared/thread-priority.js";
import { type FeedFormat, parseFeedCsv } from "./threat-feed-csv.js";
import type { FeedWorkerReply } from "./threat-feed.js";

/** As the QR thread: a reload never takes a core from the redirects. */
const FEED_THREAD_NICE = 10;

const port = parentPort;
if (!port) throw new Error("threat-feed-worker must run as a worker thread");
lowerThreadPriority(FEED_THREAD_NICE);

const input = new PassThrough();
const ack = () => port.postMessage({ type: "ack" } satisfies FeedWorkerReply);
port.on("message", (chunk: Uint8Array | null) => {
  if (chunk === null) input.end();
  else if (input.write(chunk)) ack();
  else input.once("drain", ack);
});

parseFeedCsv((workerData as { format: FeedFormat }).format, input).then(
  (feed) => {
    const hosts = feed.hosts.parts();
    const urls = feed.urls.parts();
    const reply: FeedWorkerReply = { type: "done", rows: feed.rows, skipped: feed.skipped, hosts, urls };
    port.postMessage(reply, [hosts, urls].flatMap((p) => [p.bytes.buffer, p.offsets.buffer, p.slots.buffer]) as ArrayBuffer[]);
  },
  (err: unknown) => port.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies FeedWorkerReply),
);
