// One threat feed read whole (THREAT_FEEDS, docs/operator.md): from a file, or from an address fetched through
// the webhooks' address guard (each DNS answer checked, the connection pinned to the checked address, bounded in
// time and size); its bytes parsed on a worker thread (threat-feed-worker.ts), whose heap takes the parser's
// garbage, and its keys handed back as FeedTables outside the JavaScript heap.
import { createReadStream, promises as fs } from "node:fs";
import type { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import { Agent, request } from "undici";
import { FeedTable, type FeedTableParts } from "../links/feed-table.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { pinnedLookup } from "../webhooks/send.js";
import type { FeedFormat, ParsedFeed } from "./threat-feed-csv.js";

export type { FeedFormat, ParsedFeed } from "./threat-feed-csv.js";

/** Far above URLhaus's full list (about 3 million rows) as CSV; a bigger answer or file is refused whole. */
export const MAX_FEED_BYTES = 512 * 1024 * 1024;
export const FEED_FETCH_TIMEOUT_MS = 120_000;
/** The bytes sent to the parser thread per message. */
const POST_BYTES = 64 * 1024;

export interface FeedSource {
  format: FeedFormat;
  /** An absolute file path, or an http(s):// address. */
  location: string;
}

/** What the parser thread answers: a chunk taken, the feed's keys, or why it could not read them. */
export type FeedWorkerReply =
  { type: "ack" } | { type: "done"; rows: number; skipped: number; hosts: FeedTableParts; urls: FeedTableParts } | { type: "error"; message: string };

export function isRemote(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

function workerUrl(): URL {
  return new URL(import.meta.url.endsWith(".ts") ? "./threat-feed-worker-tsx.mjs" : "./threat-feed-worker.js", import.meta.url);
}

/**
 * Parses a feed's CSV on a worker thread (threat-feed-csv.ts says how each format is read). The input's
 * chunks go over one at a time, each once the thread has taken the one before, so a slow parse holds the
 * input back instead of queueing it in memory.
 */
export async function parseFeed(format: FeedFormat, input: Readable): Promise<ParsedFeed> {
  const worker = new Worker(workerUrl(), { workerData: { format } });
  let taken: (() => void) | null = null;
  let failed: ((err: Error) => void) | null = null;
  const result = new Promise<ParsedFeed>((resolve, reject) => {
    failed = reject;
    worker.on("message", (m: FeedWorkerReply) => {
      if (m.type === "ack") taken?.();
      else if (m.type === "done") resolve({ rows: m.rows, skipped: m.skipped, hosts: FeedTable.from(m.hosts), urls: FeedTable.from(m.urls) });
      else reject(new Error(m.message));
    });
    worker.on("error", reject);
    worker.on("exit", () => reject(new Error("the threat feed parser stopped")));
  });
  const post = async (chunks: Buffer[]) => {
    // One copy of its own to transfer (a small Buffer's memory is a pool other Buffers share).
    const bytes = new Uint8Array(Buffer.concat(chunks));
    const next = new Promise<void>((resolve) => (taken = resolve));
    worker.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
    await Promise.race([next, result]);
  };
  const pump = async () => {
    // Small chunks (a stream of rows) gathered up to POST_BYTES: one message and acknowledgement each.
    let pending: Buffer[] = [];
    let size = 0;
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      pending.push(buf);
      size += buf.length;
      if (size < POST_BYTES) continue;
      await post(pending);
      pending = [];
      size = 0;
    }
    if (size > 0) await post(pending);
    worker.postMessage(null);
  };
  try {
    pump().catch((err: Error) => failed?.(err));
    return await result;
  } finally {
    void worker.terminate();
  }
}

export interface FeedReaderOptions {
  check: Pick<ReceiverCheck, "check">;
  /** THREAT_FEED_ALLOW_PRIVATE: feeds on loopback and private addresses (a mirror on the LAN, tests). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Trusted CAs instead of Node's store (tests with their own CA). */
  ca?: string[];
}

/** Reads one source whole: a file, or an address through the guard (no redirect followed). */
export async function readFeed(source: FeedSource, opts: FeedReaderOptions): Promise<ParsedFeed> {
  const maxBytes = opts.maxBytes ?? MAX_FEED_BYTES;
  if (!isRemote(source.location)) {
    const stat = await fs.stat(source.location);
    if (!stat.isFile()) throw new Error(`${source.location} is not a regular file`);
    if (stat.size > maxBytes) throw new Error(`${source.location} is larger than ${maxBytes / 1024 / 1024} MiB`);
    return parseFeed(source.format, createReadStream(source.location));
  }
  const where = describeSource(source.location);
  const url = new URL(source.location);
  if (url.username || url.password) throw new Error(`${where} must not carry a user name or password`);
  let receiver;
  try {
    receiver = await opts.check.check(url.href, "custom", { http: true, allowPrivate: opts.allowPrivate });
  } catch (e) {
    throw new Error(`${where} is refused: ${(e as Error).message}`, { cause: e });
  }
  const timeoutMs = opts.timeoutMs ?? FEED_FETCH_TIMEOUT_MS;
  const agent = new Agent({ connect: { lookup: pinnedLookup(receiver.address, receiver.family), timeout: timeoutMs, ...(opts.ca ? { ca: opts.ca } : {}) } });
  try {
    const res = await request(url, {
      method: "GET",
      dispatcher: agent,
      headers: { accept: "text/csv, text/plain", "accept-encoding": "identity", "user-agent": "snip-threat-feed/1" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`${where} answered HTTP ${res.statusCode}`);
    }
    const length = Number(res.headers["content-length"]);
    if (length > maxBytes) {
      await res.body.dump();
      throw new Error(`${where} answered more than ${maxBytes / 1024 / 1024} MiB`);
    }
    let bytes = 0;
    res.body.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) res.body.destroy(new Error(`${where} answered more than ${maxBytes / 1024 / 1024} MiB`));
    });
    return await parseFeed(source.format, res.body);
  } catch (e) {
    if ((e as Error).name === "TimeoutError" || (e as Error).name === "AbortError")
      throw new Error(`${where} did not answer within ${timeoutMs / 1000} s`, { cause: e });
    throw e;
  } finally {
    void agent.close().catch(() => undefined);
  }
}

/** A source as the console shows it: a path, or an address without its query (a feed key may sit there). */
export function describeSource(location: string): string {
  if (!isRemote(location)) return location;
  const u = new URL(location);
  return `${u.origin}${u.pathname}`;
}
