// What TRUST_PROXY changes about a request, decided in one place for Fastify's routes and the raw
// redirect fast path: the client address, the host name and whether the country header is believed.
import type { IncomingMessage } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import type { TrustProxy } from "../config.js";

/** Whether the proxy at `address`, `hop` hops from the server, is trusted (Fastify's trustProxy function). */
export type Trust = (address: string, hop: number) => boolean;

/** Addresses whose trust is remembered (TRUST_PROXY as a list). */
const TRUST_MEMO = 1024;

/** The trust function for TRUST_PROXY, or null without trusted proxies. */
export function trustOf(tp: TrustProxy): Trust | null {
  if (tp === false) return null;
  if (tp === true) return () => true;
  if (typeof tp === "number") return (_address, hop) => hop < tp;
  // proxy-addr parses the address on every call (about 2 µs); the answer for a list depends on the
  // address alone, and the same few proxy addresses come back on every request.
  const compiled = proxyAddr.compile(tp);
  const known = new Map<string, boolean>();
  return (address) => {
    let trusted = known.get(address);
    if (trusted === undefined) {
      // Forwarded-for entries are the client's to choose: the memo is bounded.
      if (known.size >= TRUST_MEMO) known.clear();
      known.set(address, (trusted = compiled(address, 0)));
    }
    return trusted;
  };
}

/** What an X-Forwarded-For entry may hold: an address, with a port, brackets or a zone, or a proxy's word such as "unknown". */
const ADDRESS_LIKE = /^[0-9A-Za-z.:[\]%_-]+$/;
const FORWARDED_FOR_PLAIN = /^[0-9A-Za-z.:[\]%_,\t -]*$/;

/**
 * Drops X-Forwarded-For entries that cannot be an address (control characters, text): what a trusted proxy
 * passes on becomes the client address (rate limits, visitor keys, logs), and must stay one. Call with trusted
 * proxies only, before Fastify or the fast path reads the header; a plain header is left as it is.
 */
export function cleanForwardedFor(req: IncomingMessage): void {
  // Node joins repeated X-Forwarded-For headers into one string.
  const v = req.headers["x-forwarded-for"] as string | undefined;
  if (v === undefined || FORWARDED_FOR_PLAIN.test(v)) return;
  const kept = v
    .split(",")
    .map((e) => e.trim())
    .filter((e) => ADDRESS_LIKE.test(e));
  if (kept.length === 0) delete req.headers["x-forwarded-for"];
  else req.headers["x-forwarded-for"] = kept.join(", ");
}

/** The request's client address, as Fastify's request.ip gives it. */
export function clientIp(req: IncomingMessage, trust: Trust | null): string {
  return trust === null ? (req.socket.remoteAddress ?? "") : proxyAddr(req, trust);
}

/** Whether the request came straight from a trusted proxy (whose X-Forwarded-Host and country header count). */
export function fromTrustedProxy(req: IncomingMessage, trust: Trust | null): boolean {
  if (trust === null) return false;
  const peer = req.socket.remoteAddress;
  return peer !== undefined && trust(peer, 0);
}

/** The last of a header's comma-separated values (the one the nearest proxy added). */
function lastValue(v: string): string {
  const i = v.lastIndexOf(",");
  return (i === -1 ? v : v.slice(i + 1)).trim();
}

/** The request's host name (port stripped), as Fastify's request.hostname gives it. */
export function hostnameOf(req: IncomingMessage, trust: Trust | null): string {
  const forwarded = req.headers["x-forwarded-host"];
  return withoutPort(forwarded && fromTrustedProxy(req, trust) ? lastValue(forwarded as string) : req.headers.host);
}

/** A Host header's name without its port ("" when none). */
function withoutPort(host: string | undefined): string {
  if (!host) return "";
  if (host[0] === "[") return host.slice(0, host.indexOf("]") + 1);
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/** The visitor's country from a trusted proxy's header (COUNTRY_HEADER), or null. */
export function proxyCountry(req: IncomingMessage, trust: Trust | null, header: string): string | null {
  if (!fromTrustedProxy(req, trust)) return null;
  const v = req.headers[header];
  return (Array.isArray(v) ? v[0] : v)?.trim().slice(0, 16) || null;
}
