// One threat feed read whole (THREAT_FEEDS, docs/operator.md): URLhaus's and PhishTank's documented CSV
// formats, from a file or from an address fetched through the webhooks' address guard (each DNS answer
// checked, the connection pinned to the checked address, bounded in time and size), parsed as a stream with
// csv-parse so a million rows never sit in memory as text, and keyed as the blocklist matches them.
import { createReadStream, promises as fs } from "node:fs";
import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import { Agent, request } from "undici";
import { feedKey } from "../links/host-blocklist.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { pinnedLookup } from "../webhooks/send.js";

export const FEED_FORMATS = ["urlhaus", "phishtank"] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** Far above URLhaus's full list (about 3 million rows) as CSV; a bigger answer or file is refused whole. */
export const MAX_FEED_BYTES = 512 * 1024 * 1024;
export const FEED_FETCH_TIMEOUT_MS = 120_000;
/** Rows parsed between two turns of the event loop. */
const ROWS_PER_TURN = 2_000;

export interface FeedSource {
  format: FeedFormat;
  /** An absolute file path, or an http(s):// address. */
  location: string;
}

export interface ParsedFeed {
  hosts: Set<string>;
  urls: Set<string>;
  /** Data rows read (comments and the header aside). */
  rows: number;
  /** Rows with no usable http(s) address, or that CSV could not read. */
  skipped: number;
}

export function isRemote(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * Parses a feed's CSV. URLhaus: `#` comment lines, then rows whose third column is the address (`id,
 * dateadded,url,url_status,...`). PhishTank: a header row naming the columns, the address under `url`.
 */
export async function parseFeed(format: FeedFormat, input: Readable): Promise<ParsedFeed> {
  const parser = parse({
    comment: "#",
    comment_no_infix: true,
    columns: format === "phishtank",
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    trim: true,
  });
  const out: ParsedFeed = { hosts: new Set(), urls: new Set(), rows: 0, skipped: 0 };
  parser.on("skip", () => {
    out.rows++;
    out.skipped++;
  });
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);
  for await (const record of parser as AsyncIterable<string[] | Record<string, string>>) {
    out.rows++;
    const raw = Array.isArray(record) ? record[2] : record.url;
    const key = typeof raw === "string" ? feedKey(raw) : null;
    if (key === null) out.skipped++;
    else if (key.url === null) out.hosts.add(key.host);
    else out.urls.add(key.url);
    if (out.rows % ROWS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
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
