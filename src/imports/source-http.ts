// The HTTP side of the API sources: every address checked like a webhook receiver (each DNS answer, private
// ranges refused unless allowed) and connected to as checked (a pinned lookup, so a DNS answer that changes
// later cannot steer a request inside), no redirect followed, each request bounded in time and size, and
// rate-limit answers (429, 503 with Retry-After) waited for a bounded number of times. Error messages name
// the address without its query (YOURLS carries its signature there) and never quote an answer's body.
import { Agent, request } from "undici";
import type { CheckedReceiver, CheckOverrides } from "../webhooks/receiver-check.js";
import { ReceiverRefused, ReceiverUnresolved } from "../webhooks/receiver-check.js";
import { describeFailure, pinnedLookup } from "../webhooks/send.js";
import { SourceError, type SourceFetch } from "./source.js";

/** What createSourceFetch needs of ReceiverCheck (src/webhooks/receiver-check.ts). */
export interface SourceAddressCheck {
  check(raw: string, kind: "custom", opts: CheckOverrides): Promise<CheckedReceiver>;
}

export interface SourceFetchOptions {
  check: SourceAddressCheck;
  /** Private and loopback addresses allowed (a self-hosted source on the LAN). */
  allowPrivate: boolean;
  /** Per request, from connecting to the last byte of the answer. */
  timeoutMs?: number;
  /** Largest answer read. */
  maxBytes?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Longest single Retry-After wait; a longer one ends the read with a transient SourceError. */
  maxRetryWaitMs?: number;
  /** Retries of one request after 429/503 answers. */
  maxRetries?: number;
  /** Clock for Retry-After dates. */
  now?: () => number;
  /** Trusted CAs instead of Node's store (tests with their own CA). */
  ca?: string[];
}

export interface ClosableSourceFetch extends SourceFetch {
  /** Drops the kept-alive connections. */
  close(): Promise<void>;
}

export const SOURCE_TIMEOUT_MS = 15_000;
export const SOURCE_MAX_BYTES = 8 * 1024 * 1024;
export const SOURCE_MAX_RETRY_WAIT_MS = 60_000;
export const SOURCE_MAX_RETRIES = 5;
/** A checked address is reused this long (the connection still goes to the checked address only). */
const CHECK_TTL_MS = 30_000;
/** Wait before retrying a 429 that names no Retry-After, doubled on each retry. */
const DEFAULT_429_WAIT_MS = 1_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

type Init = Parameters<SourceFetch["json"]>[1];

export function createSourceFetch(opts: SourceFetchOptions): ClosableSourceFetch {
  return new SourceHttp(opts);
}

class SourceHttp implements ClosableSourceFetch {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxWait: number;
  private readonly maxRetries: number;
  private readonly now: () => number;
  private readonly agents = new Map<string, Agent>();
  private readonly checked = new Map<string, { at: number; receiver: CheckedReceiver }>();

  constructor(private readonly opts: SourceFetchOptions) {
    this.timeoutMs = opts.timeoutMs ?? SOURCE_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? SOURCE_MAX_BYTES;
    this.sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    this.maxWait = opts.maxRetryWaitMs ?? SOURCE_MAX_RETRY_WAIT_MS;
    this.maxRetries = opts.maxRetries ?? SOURCE_MAX_RETRIES;
    this.now = opts.now ?? Date.now;
  }

  async json(raw: string, init?: Init): Promise<unknown> {
    const where = describeUrl(raw);
    for (let retries = 0; ; retries++) {
      const answer = await this.once(raw, where, init);
      if (answer.status === 429 || answer.status === 503) {
        const wait = retryWait(answer, retries, this.now());
        if (wait !== null) {
          if (retries >= this.maxRetries)
            throw new SourceError(`${where} still answered ${answer.status} (busy or rate limited) after ${this.maxRetries} retries; try again later`, true);
          if (wait > this.maxWait)
            throw new SourceError(`${where} asks to wait ${Math.ceil(wait / 1000)} s before the next request (rate limited); try again later`, true);
          await this.sleep(wait);
          continue;
        }
      }
      return interpret(answer, where);
    }
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((a) => a.destroy().catch(() => undefined)));
  }

  private async checkAddress(raw: string, where: string): Promise<CheckedReceiver> {
    let origin: string;
    try {
      const u = new URL(raw);
      // Checked here too: the cache below is keyed by origin, which leaves credentials out.
      if (u.username || u.password) throw new SourceError(`the source address ${where} is refused: must not contain a user name or password`, false);
      origin = u.origin;
    } catch (e) {
      if (e instanceof SourceError) throw e;
      throw new SourceError("the source address is not an absolute http:// or https:// URL", false);
    }
    const held = this.checked.get(origin);
    if (held && this.now() - held.at < CHECK_TTL_MS) return { ...held.receiver, url: new URL(raw) };
    try {
      const receiver = await this.opts.check.check(raw, "custom", { http: true, allowPrivate: this.opts.allowPrivate });
      this.checked.set(origin, { at: this.now(), receiver });
      return receiver;
    } catch (e) {
      if (e instanceof ReceiverUnresolved) throw new SourceError(`the source address: ${e.message}`, true);
      if (e instanceof ReceiverRefused) throw new SourceError(`the source address ${where} is refused: ${e.message}`, false);
      throw new SourceError(`the source address ${where} could not be checked`, true);
    }
  }

  private agentFor(c: CheckedReceiver): Agent {
    const key = `${c.url.protocol}|${c.host}|${c.url.port}|${c.address}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const ca = this.opts.ca;
      agent = new Agent({
        connections: 4,
        keepAliveTimeout: 10_000,
        connect: { lookup: pinnedLookup(c.address, c.family), timeout: this.timeoutMs, ...(ca ? { ca } : {}) },
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private async once(raw: string, where: string, init: Init): Promise<Answer> {
    const c = await this.checkAddress(raw, where);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    const headers: Record<string, string> = { accept: "application/json", "user-agent": "snip-import/1", ...(init?.headers ?? {}) };
    const hasBody = init?.body !== undefined;
    if (hasBody) headers["content-type"] = "application/json";
    try {
      const res = await request(c.url, {
        method: init?.method ?? "GET",
        dispatcher: this.agentFor(c),
        headers,
        body: hasBody ? JSON.stringify(init?.body) : null,
        signal: abort.signal,
      });
      const body = await readBounded(res.body, this.maxBytes, where);
      return { status: res.statusCode, headers: res.headers, body };
    } catch (e) {
      if (e instanceof SourceError) throw e;
      if (abort.signal.aborted) throw new SourceError(`${where} did not answer within ${this.timeoutMs / 1000} s`, true);
      throw new SourceError(`could not reach ${where} (${describeFailure(e)})`, true);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The answer's JSON, or the SourceError its status means. */
function interpret(a: Answer, where: string): unknown {
  const s = a.status;
  if (s === 401 || s === 403)
    throw new SourceError(`the source refused the token (${s} from ${where}): check the API key or signature and its permissions`, false);
  if (s >= 300 && s < 400) {
    const to = redirectTarget(a.headers.location);
    throw new SourceError(`${where} answered ${s} (a redirect${to ? ` to ${to}` : ""}, not followed): check the base address`, false);
  }
  if (s >= 500) throw new SourceError(`${where} answered ${s} (server error); try again later`, true);
  if (s === 429) throw new SourceError(`${where} answered 429 (rate limited); try again later`, true);
  if (s >= 400) throw new SourceError(`${where} answered ${s}`, false);
  if (s < 200) throw new SourceError(`${where} answered ${s}`, true);
  try {
    return JSON.parse(a.body.toString("utf8")) as unknown;
  } catch {
    const type = String(a.headers["content-type"] ?? "no content type").split(";")[0];
    throw new SourceError(`${where} answered something that is not valid JSON (${a.body.length} bytes, ${type})`, true);
  }
}

/** Milliseconds to wait before retrying, or null when the answer says nothing to wait for. */
export function retryWait(a: { status: number; headers: Answer["headers"] }, retries: number, nowMs: number): number | null {
  const header = a.headers["retry-after"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value) {
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  // A 429 without (a readable) Retry-After: back off 1 s, 2 s, 4 s ...; a bare 503 is a server error.
  return a.status === 429 ? DEFAULT_429_WAIT_MS * 2 ** retries : null;
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number, where: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new SourceError(
        `${where} answered more than ${Math.round(maxBytes / 1024 / 1024) || maxBytes} ${maxBytes >= 1024 * 1024 ? "MB" : "bytes"}; the answer was not read`,
        false,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The address as error messages show it: scheme, host and path, never the query (tokens live there). */
export function describeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "the source address";
  }
}

function redirectTarget(location: string | string[] | undefined): string | null {
  const raw = Array.isArray(location) ? location[0] : location;
  if (!raw) return null;
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}
