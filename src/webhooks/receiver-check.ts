// Checks a receiver URL completely (syntax, connector host, every DNS answer) and names the one address to
// connect to: the delivery connects there and nowhere else, so a DNS answer that changes afterwards
// (DNS rebinding) cannot steer it to an internal host.
import { promises as dnsPromises } from "node:dns";
import { isIP } from "node:net";
import { type WebhookKind, addressAllowed, classifyAddress, describeClass, isConnectorHost, parseReceiverUrl } from "./address-guard.js";

export interface CheckedReceiver {
  url: URL;
  /** The host as the TLS certificate must name it. */
  host: string;
  /** The checked address the connection goes to. */
  address: string;
  family: 4 | 6;
}

/** A refused receiver address; the message says why, for the person who entered it. */
export class ReceiverRefused extends Error {
  override name = "ReceiverRefused";
  /** True when WEBHOOK_ALLOW_PRIVATE would have let the address through (loopback, private, unique-local). */
  allowablePrivate = false;
}

/** DNS did not answer (in time, or at all) for the receiver's host: not a verdict on the address, try again later. */
export class ReceiverUnresolved extends ReceiverRefused {
  override name = "ReceiverUnresolved";
}

/** Bound on resolving a receiver's host (A and AAAA at once), at creation and before every delivery. */
export const RECEIVER_DNS_TIMEOUT_MS = 2_000;

export interface ReceiverCheckOptions {
  /** DNS_SERVERS ("ip:port" or "[ip6]:port"); empty: the system resolver. */
  dnsServers: readonly string[];
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** Bound on one resolution. */
  resolveTimeoutMs?: number;
}

/** What a caller other than the webhooks changes for one check. */
export interface CheckOverrides {
  /** Accept http:// as well as https://. */
  http?: boolean;
  /** Instead of the checker's own allowPrivate. */
  allowPrivate?: boolean;
}

const PRIVATE_CLASSES = new Set(["loopback", "private", "unique-local"]);

export class ReceiverCheck {
  private readonly resolver: dnsPromises.Resolver | null;
  private readonly timeoutMs: number;

  constructor(private readonly opts: ReceiverCheckOptions) {
    this.timeoutMs = opts.resolveTimeoutMs ?? RECEIVER_DNS_TIMEOUT_MS;
    if (opts.dnsServers.length > 0) {
      this.resolver = new dnsPromises.Resolver({ timeout: this.timeoutMs, tries: 1 });
      this.resolver.setServers([...opts.dnsServers]);
    } else {
      this.resolver = null;
    }
  }

  get allowPrivate(): boolean {
    return this.opts.allowPrivate;
  }

  /**
   * The receiver and its checked address, or ReceiverRefused. `opts` serves import sources: `http` accepts
   * http:// too, `allowPrivate` replaces WEBHOOK_ALLOW_PRIVATE for this check (imports have their own setting).
   */
  async check(raw: string, kind: WebhookKind, opts: CheckOverrides = {}): Promise<CheckedReceiver> {
    let parsed;
    try {
      parsed = parseReceiverUrl(raw, { http: opts.http === true });
    } catch (e) {
      throw new ReceiverRefused((e as Error).message);
    }
    const { url, host, literal } = parsed;
    const allowPrivate = opts.allowPrivate ?? this.opts.allowPrivate;
    const addresses = literal ? [host] : await this.resolve(host);
    for (const a of addresses) {
      const verdict = addressAllowed(a, allowPrivate);
      if (!verdict.ok) {
        const refused = new ReceiverRefused(literal ? `is ${describeClass(verdict.cls)}` : `${host} resolves to ${describeClass(verdict.cls)} (${a})`);
        refused.allowablePrivate = !allowPrivate && addressAllowed(a, true).ok;
        throw refused;
      }
    }
    // A connector goes to its chat tool's host on the standard port only. WEBHOOK_ALLOW_PRIVATE lets
    // connector kinds reach a test or in-house receiver on a private network; a public host must still
    // be the chat tool's own.
    if (kind !== "custom" && (!isConnectorHost(kind, host) || url.port !== "")) {
      const inside = allowPrivate && addresses.every((a) => PRIVATE_CLASSES.has(classifyAddress(a)));
      if (!inside) throw new ReceiverRefused(`is not a ${kind} webhook address on port 443 (see docs/webhooks.md for the accepted hosts)`);
    }
    const address = addresses[0] as string;
    return { url, host, address, family: isIP(address) === 6 ? 6 : 4 };
  }

  /** Every A and AAAA answer for host; refuses a name that does not resolve. */
  private async resolve(host: string): Promise<string[]> {
    let answers: string[];
    try {
      answers = await withTimeout(this.lookup(host), this.timeoutMs);
    } catch (e) {
      throw this.failure(host, e as NodeJS.ErrnoException);
    }
    if (answers.length === 0) throw new ReceiverRefused(`${host} does not resolve`);
    return answers;
  }

  /** A name that does not exist is refused; DNS that fails or says nothing in time is named as such. */
  private failure(host: string, err: NodeJS.ErrnoException): ReceiverRefused {
    const code = err.code ?? "";
    if (code === "ENOTFOUND" || code === "ENODATA") return new ReceiverRefused(`${host} does not resolve`);
    if (code === TIMED_OUT || code === "ETIMEOUT" || code === "EAI_AGAIN" || code === "ECONNREFUSED") {
      return new ReceiverUnresolved(`DNS did not answer for ${host} within ${this.timeoutMs / 1000} s; try again later`);
    }
    return new ReceiverUnresolved(`DNS failed for ${host} (${code || "lookup failed"}); try again later`);
  }

  private async lookup(host: string): Promise<string[]> {
    if (!this.resolver) {
      const all = await dnsPromises.lookup(host, { all: true, verbatim: true });
      return all.map((a) => a.address);
    }
    const r = this.resolver;
    const [v4, v6] = await Promise.all([r.resolve4(host).catch(noData), r.resolve6(host).catch(noData)]);
    return [...v4, ...v6];
  }
}

/** "No such record" of one family is an empty answer; anything else (timeout, SERVFAIL) fails the check. */
function noData(err: NodeJS.ErrnoException): string[] {
  if (err.code === "ENODATA" || err.code === "ENOTFOUND") return [];
  throw err;
}

const TIMED_OUT = "SNIP_DNS_TIMEOUT";

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error("timeout"), { code: TIMED_OUT })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
