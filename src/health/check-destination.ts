// One destination's check (docs/health.md, What is checked): HEAD, then GET when HEAD is refused, each request to
// the address the webhooks' SSRF guard checked (pinned, so DNS cannot steer it inside), redirects followed by hand
// up to MAX_REDIRECTS with loops caught, a timeout per request, and the TLS certificate's end date read from the
// socket. The answer is classified: ok, a failure, or neither (a 429, a site refusing robots, a refused address).
import { performance } from "node:perf_hooks";
import type { TLSSocket } from "node:tls";
import { Agent, buildConnector, request } from "undici";
import { type CheckedReceiver, type ReceiverCheck, ReceiverRefused, ReceiverUnresolved } from "../webhooks/receiver-check.js";
import { parseReceiverUrl } from "../webhooks/address-guard.js";
import { pinnedLookup } from "../webhooks/send.js";
import type { HostGate } from "./host-gate.js";
import { hostOf } from "./destinations.js";
import { HEALTH_RESULTS } from "../contract/health.js";

/** Redirects followed at most; one more is `too_many_redirects`. */
export const MAX_REDIRECTS = 5;
/** What HEAD answers when a server does not take it: the check asks again with GET. */
const HEAD_REFUSED = new Set([400, 403, 405, 501]);
/** How long a host's checked address is reused, and how many hosts are remembered. */
const RESOLVED_MS = 60_000;
const MAX_RESOLVED = 10_000;
/** What is read of a GET answer's body (the rest is dropped with the connection). */
const MAX_BODY_BYTES = 16 * 1024;

export const CHECK_RESULTS = HEALTH_RESULTS;
export type CheckResult = (typeof CHECK_RESULTS)[number];

/** Results that count toward broken (three in a row). */
/** Results that neither fail nor succeed: a 429 (checked again later), a site refusing robots (401, 403...), a refused address. */
const NEUTRAL: ReadonlySet<CheckResult> = new Set(["rate_limited", "denied", "address_refused"]);
export const FAILURES: ReadonlySet<CheckResult> = new Set(CHECK_RESULTS.filter((r) => r !== "ok" && !NEUTRAL.has(r)));

export interface CheckOutcome {
  result: CheckResult;
  /** The last answer's status, null when none came. */
  status_code: number | null;
  /** Why it failed, in a few words; null when ok. */
  error: string | null;
  /** The address the redirects ended at (or the one that failed). */
  final_url: string | null;
  redirect_loop: boolean;
  /** The last https hop's certificate end (epoch ms), null for http or when no certificate was seen. */
  tls_valid_to: number | null;
  response_ms: number;
  /** Requests sent (what the hourly budget counts). */
  requests: number;
}

export interface CheckerOptions {
  check: ReceiverCheck;
  gate: HostGate;
  timeoutMs: number;
  /** Certificate authorities instead of Node's store (tests' own CA). */
  ca?: string[];
}

interface Answer {
  status: number;
  location: string | null;
  tlsValidTo: number | null;
}

class RequestFailed extends Error {
  constructor(
    readonly result: CheckResult,
    message: string,
    readonly tlsValidTo: number | null = null,
  ) {
    super(message);
  }
}

/** `p`, or the signal's reason as soon as it aborts (a DNS lookup cannot itself be cancelled: its answer is dropped). */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export class DestinationChecker {
  /** Each host's checked address for a minute: 1,000 links to one host ask DNS once, not 1,000 times. */
  private readonly resolved = new Map<string, { address: string; family: 4 | 6; until: number }>();

  constructor(private readonly opts: CheckerOptions) {}

  /** The guard's verdict on the address (its syntax always, its DNS answer at most once a minute per host). */
  private async guard(url: string, signal?: AbortSignal): Promise<CheckedReceiver> {
    const parsed = parseReceiverUrl(url, { http: true });
    const now = performance.now();
    const hit = this.resolved.get(parsed.host);
    if (hit && hit.until > now) return { url: parsed.url, host: parsed.host, address: hit.address, family: hit.family };
    const checked = await unlessAborted(this.opts.check.check(url, "custom", { http: true }), signal);
    if (this.resolved.size >= MAX_RESOLVED) this.resolved.clear();
    this.resolved.set(parsed.host, { address: checked.address, family: checked.family, until: now + RESOLVED_MS });
    return checked;
  }

  /** The destination's outcome; `signal` (the scheduler stopping) abandons the check at once, throwing its reason. */
  async check(raw: string, signal?: AbortSignal): Promise<CheckOutcome> {
    const started = performance.now();
    const out: CheckOutcome = {
      result: "ok",
      status_code: null,
      error: null,
      final_url: raw,
      redirect_loop: false,
      tls_valid_to: null,
      response_ms: 0,
      requests: 0,
    };
    const seen = new Set<string>();
    let url = raw;
    try {
      for (let hop = 0; ; hop++) {
        seen.add(url);
        out.final_url = url;
        const answer = await this.hop(url, out, signal);
        out.status_code = answer.status;
        if (answer.tlsValidTo !== null) out.tls_valid_to = answer.tlsValidTo;
        if (answer.status >= 300 && answer.status < 400 && answer.location !== null) {
          let next: URL;
          try {
            next = new URL(answer.location, url);
          } catch {
            return finish(out, started, "ok", null);
          }
          // An app's scheme or mailto: the web part ends here, and it answered.
          if (next.protocol !== "http:" && next.protocol !== "https:") return finish(out, started, "ok", null);
          if (seen.has(next.href)) {
            out.redirect_loop = true;
            out.final_url = next.href;
            return finish(out, started, "loop", `redirect loop back to ${next.href}`);
          }
          if (hop === MAX_REDIRECTS) return finish(out, started, "too_many_redirects", `more than ${MAX_REDIRECTS} redirects`);
          url = next.href;
          continue;
        }
        return finish(out, started, ...classify(answer.status));
      }
    } catch (e) {
      if (e instanceof RequestFailed) {
        if (e.tlsValidTo !== null) out.tls_valid_to = e.tlsValidTo;
        return finish(out, started, e.result, e.message);
      }
      throw e;
    }
  }

  /** One address, within the host's limits: checked by the guard (DNS included), HEAD then (if refused) GET. */
  private async hop(url: string, out: CheckOutcome, signal?: AbortSignal): Promise<Answer> {
    const release = await this.opts.gate.acquire(hostOf(url), signal);
    try {
      let checked;
      try {
        checked = await this.guard(url, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        if (e instanceof ReceiverUnresolved || (e instanceof ReceiverRefused && / does not resolve$/.test(e.message))) {
          throw new RequestFailed("dns_error", e.message);
        }
        throw new RequestFailed("address_refused", `address refused: ${(e as Error).message}`);
      }
      out.requests++;
      const head = await this.send(checked, "HEAD", signal);
      if (!HEAD_REFUSED.has(head.status)) return head;
      out.requests++;
      return await this.send(checked, "GET", signal);
    } finally {
      release();
    }
  }

  private async send(c: { url: URL; address: string; family: 4 | 6; host: string }, method: "HEAD" | "GET", stop?: AbortSignal): Promise<Answer> {
    const timeoutMs = this.opts.timeoutMs;
    let tlsValidTo: number | null = null;
    const base = buildConnector({
      lookup: pinnedLookup(c.address, c.family),
      timeout: timeoutMs,
      // Verified below, after the certificate's end date is read: an expired certificate is reported as such.
      rejectUnauthorized: false,
      ...(this.opts.ca ? { ca: this.opts.ca } : {}),
    });
    const agent = new Agent({
      connections: 1,
      pipelining: 0,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: (options, cb) =>
        base(options, (err, socket) => {
          if (err || !socket) return cb(err ?? new Error("no socket"), null);
          const tls = socket as TLSSocket;
          if (typeof tls.getPeerCertificate !== "function") return cb(null, socket);
          const cert = tls.getPeerCertificate();
          if (cert?.valid_to) tlsValidTo = Date.parse(cert.valid_to);
          if (!tls.authorized) {
            socket.destroy();
            const code = String(tls.authorizationError ?? "UNABLE_TO_VERIFY");
            return cb(Object.assign(new Error(code), { code }), null);
          }
          cb(null, socket);
        }),
    });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const res = await request(c.url, {
        method,
        dispatcher: agent,
        signal: stop ? AbortSignal.any([abort.signal, stop]) : abort.signal,
        headers: { "user-agent": "snip-link-check/1 (+https://github.com/snip; link health)", accept: "*/*" },
      });
      await res.body.dump({ limit: MAX_BODY_BYTES }).catch(() => undefined);
      const location = res.headers.location;
      return { status: res.statusCode, location: typeof location === "string" ? location : (location?.[0] ?? null), tlsValidTo };
    } catch (e) {
      if (stop?.aborted) throw stop.reason as Error;
      if (abort.signal.aborted) throw new RequestFailed("timeout", `no answer within ${timeoutMs} ms`, tlsValidTo);
      throw failure(e, tlsValidTo);
    } finally {
      clearTimeout(timer);
      void agent.destroy().catch(() => undefined);
    }
  }
}

function finish(out: CheckOutcome, started: number, result: CheckResult, error: string | null): CheckOutcome {
  out.result = result;
  out.error = error;
  out.response_ms = Math.round(performance.now() - started);
  return out;
}

/** The final answer's class: 2xx and 3xx without a place to go are ok; 404, 410 and 5xx fail; 429 waits. */
export function classify(status: number): [CheckResult, string | null] {
  if (status < 400) return ["ok", null];
  if (status === 404 || status === 410) return ["not_found", `answered ${status}`];
  if (status === 429) return ["rate_limited", "answered 429: checked again later"];
  if (status >= 500) return ["server_error", `answered ${status}`];
  return ["denied", `answered ${status} (the site refuses the checker; not counted)`];
}

function failure(e: unknown, tlsValidTo: number | null): RequestFailed {
  const err = e as { code?: string; cause?: { code?: string }; message?: string };
  const code = err.code ?? err.cause?.code ?? "";
  if (code === "CERT_HAS_EXPIRED") return new RequestFailed("tls_expired", "the TLS certificate has expired", tlsValidTo);
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME|ERR_TLS/i.test(code))
    return new RequestFailed("tls_error", `TLS verification failed (${code})`, tlsValidTo);
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new RequestFailed("timeout", "no answer in time", tlsValidTo);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new RequestFailed("dns_error", "the host does not resolve", tlsValidTo);
  if (code === "ECONNREFUSED") return new RequestFailed("connection_error", "connection refused", tlsValidTo);
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return new RequestFailed("connection_error", "connection reset", tlsValidTo);
  return new RequestFailed("connection_error", code ? `connection failed (${code})` : "connection failed", tlsValidTo);
}
