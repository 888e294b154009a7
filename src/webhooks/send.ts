// One delivery: check the receiver again, connect to the checked address (TLS verified against the host
// name), POST once, at most DELIVERY_TIMEOUT_MS from connecting to the answer, never following a redirect.
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import type { WebhookKind } from "./address-guard.js";
import { type CheckedReceiver, type ReceiverCheck, ReceiverRefused, ReceiverUnresolved } from "./receiver-check.js";
import { type WebhookEvent, bodyFor } from "./payload.js";
import { signatureHeader } from "./secrets.js";

/** One attempt, two seconds at most (docs/api.md, Limits): a slow receiver never holds the queue. */
export const DELIVERY_TIMEOUT_MS = 2_000;
/** What is read of a receiver's answer (the rest is dropped with the connection). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A webhook as a delivery needs it; secret only for custom receivers. */
export interface DeliveryTarget {
  id: string;
  ownerId: string;
  url: string;
  kind: WebhookKind;
  secret: string | null;
  /** The event types it takes (link_click, lead.created, sale.created, link.split_decided). */
  events: readonly string[];
}

/** A delivery log entry (docs/api.md, Webhooks: {id, event, at, status_code, error, duration_ms}; at in epoch ms here). */
export interface DeliveryResult {
  id: string;
  webhookId: string;
  /** The event's type (link_click, lead.created, ...). */
  event: string;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  test: boolean;
  /** The request body as sent (JSON). */
  payload: string;
}

export interface SenderOptions {
  check: ReceiverCheck;
  now: () => number;
  /**
   * Certificate authorities to trust instead of Node's default store. Production leaves this unset
   * (Node's store, with NODE_EXTRA_CA_CERTS); in-process tests pass the bundled roots plus their own CA.
   */
  ca?: string[];
  timeoutMs?: number;
  /** Sockets per webhook (the per-webhook concurrency). */
  connections: number;
  /** Runs each delivery (`deliver`) and returns its result: tracing puts a span around it. */
  observe?: (target: DeliveryTarget, event: WebhookEvent, deliver: () => Promise<DeliveryResult>) => Promise<DeliveryResult>;
}

/** A lookup that answers the checked address, whatever is asked: the socket cannot go anywhere else. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_host, opts, cb) => {
    if (opts.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
}

export class WebhookSender {
  /** A keep-alive agent per webhook, bound to one checked address; replaced when the check answers another. */
  private readonly agents = new Map<string, { key: string; agent: Agent }>();
  private readonly timeoutMs: number;

  constructor(private readonly opts: SenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  send(target: DeliveryTarget, event: WebhookEvent): Promise<DeliveryResult> {
    const observe = this.opts.observe;
    return observe ? observe(target, event, () => this.deliver(target, event)) : this.deliver(target, event);
  }

  private async deliver(target: DeliveryTarget, event: WebhookEvent): Promise<DeliveryResult> {
    const body = bodyFor(target.kind, event);
    const result: DeliveryResult = {
      id: event.id,
      webhookId: target.id,
      event: event.type,
      at: this.opts.now(),
      status_code: null,
      error: null,
      duration_ms: 0,
      test: event.test === true,
      payload: body,
    };
    let checked: CheckedReceiver;
    try {
      checked = await this.opts.check.check(target.url, target.kind);
    } catch (e) {
      result.error = e instanceof ReceiverUnresolved ? e.message : e instanceof ReceiverRefused ? `address refused: ${e.message}` : "address check failed";
      return result;
    }
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "snip-webhooks/1" };
    if (target.kind === "custom") {
      if (target.secret === null) {
        result.error = "secret unreadable (SESSION_SECRET changed?): rotate the secret";
        return result;
      }
      headers["x-snip-event"] = event.type;
      headers["x-snip-delivery"] = event.id;
      headers["x-snip-signature"] = signatureHeader(target.secret, Math.floor(this.opts.now() / 1000), body);
    }
    const agent = this.agentFor(target.id, checked);
    const abort = new AbortController();
    const started = performance.now();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const res = await request(checked.url, { method: "POST", dispatcher: agent, headers, body, signal: abort.signal });
      result.status_code = res.statusCode;
      await res.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
      if (res.statusCode >= 300 && res.statusCode < 400) result.error = `redirect not followed (${res.statusCode})`;
      else if (res.statusCode < 200 || res.statusCode >= 300) result.error = `receiver answered ${res.statusCode}`;
    } catch (e) {
      result.error = abort.signal.aborted ? `timeout after ${this.timeoutMs} ms` : describeFailure(e);
    } finally {
      clearTimeout(timer);
      result.duration_ms = Math.round(performance.now() - started);
    }
    return result;
  }

  /** Drops a webhook's connections (removed, or its address changed). */
  forget(webhookId: string): void {
    const held = this.agents.get(webhookId);
    if (!held) return;
    this.agents.delete(webhookId);
    void held.agent.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((a) => a.agent.destroy().catch(() => undefined)));
  }

  private agentFor(webhookId: string, c: CheckedReceiver): Agent {
    const key = `${c.host}|${c.url.port}|${c.address}`;
    const held = this.agents.get(webhookId);
    if (held?.key === key) return held.agent;
    if (held) void held.agent.close().catch(() => undefined);
    const agent = new Agent({
      connections: this.opts.connections,
      keepAliveTimeout: 4_000,
      // The TLS connection is made to the host name (SNI, certificate check) through the pinned lookup.
      connect: { lookup: pinnedLookup(c.address, c.family), timeout: this.timeoutMs, ...(this.opts.ca ? { ca: this.opts.ca } : {}) },
    });
    this.agents.set(webhookId, { key, agent });
    return agent;
  }
}

/** A short, stable description of a failed connection (no internals beyond the error code). */
export function describeFailure(e: unknown): string {
  const err = e as { code?: string; cause?: { code?: string }; message?: string };
  const code = err.code ?? err.cause?.code ?? "";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
  if (code === "UND_ERR_CONNECT_TIMEOUT") return "connection timed out";
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME/i.test(code)) return `TLS verification failed (${code})`;
  return code ? `connection failed (${code})` : "connection failed";
}
