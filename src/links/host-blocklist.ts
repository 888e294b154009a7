// The destination blocklist as the redirect and link rules ask it: hosts (each with its subdomains) from
// the console, from BLOCKLIST_FILE and from the threat feeds, and the feeds' exact addresses, matched in
// memory; listeners hear of every change. It lives with the link rules that consult it; admin/ (the
// console, BLOCKLIST_FILE, THREAT_FEEDS) fills it from above.
import type { FeedTable } from "./feed-table.js";

const HOST_RE = /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/;
/**
 * Already canonical: lowercase ASCII labels ending in one that starts with a letter (so no IPv4 form for
 * the URL parser to rewrite) and no punycode to check. Most lines of a big BLOCKLIST_FILE look like this,
 * and skipping the URL parser for them halves its load time.
 */
const PLAIN_HOST_RE = /^(?:[a-z0-9_-]{1,63}\.)*[a-z][a-z0-9_-]{0,62}$/;

/**
 * A host as the blocklist keys it: lowercase ASCII (IDN as punycode), no trailing dot, an IPv4 literal
 * in its canonical form or an IPv6 literal in brackets; null if not a host name. A leading "*." (how
 * many published lists write "this domain and its subdomains") is dropped: every entry covers those.
 */
export function normalizeHost(raw: string): string | null {
  let text = raw.trim().replace(/\.$/, "");
  if (text.startsWith("*.")) text = text.slice(2);
  if (text === "" || text.length > 253) return null;
  if (PLAIN_HOST_RE.test(text) && !text.includes("xn--")) return text;
  const ipv6 = text.startsWith("[") && text.endsWith("]");
  if (/[\s/?#@\\]/.test(text) || (!ipv6 && text.includes(":"))) return null;
  let host: string;
  try {
    host = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  if (ipv6) return host;
  return host.length <= 253 && HOST_RE.test(host) ? host : null;
}

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

function hostOf(u: URL): string | null {
  const host = u.hostname.replace(/\.$/, "");
  return host === "" ? null : host.toLowerCase();
}

/** The host of an http(s) address, normalised; null when it has none. */
export function hostOfUrl(url: string): string | null {
  const u = parseUrl(url);
  return u === null ? null : hostOf(u);
}

/**
 * What a threat feed's address is matched by: a site's root (`http://host/`, no query) is a host entry
 * (`{host}`, its subdomains included, like the blocklist's); any other address matches exactly
 * (`{url}`: scheme, host as normalised, port, path and query; the fragment dropped). A link's
 * destination is keyed the same way, so `https://evil.example/login?a=1` matches only itself.
 */
export function feedKey(raw: string): { host: string; url: string | null } | null {
  const u = parseUrl(raw.trim());
  return u === null ? null : feedKeyOf(u);
}

/** feedKey of an address already parsed (which it changes: the fragment dropped, the host normalised). */
function feedKeyOf(u: URL): { host: string; url: string | null } | null {
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = normalizeHost(u.hostname);
  if (host === null) return null;
  if (u.pathname === "/" && u.search === "") return { host, url: null };
  // The parser's own serialisation: one flat string (a million keys built by concatenation took three times the memory).
  u.hash = "";
  if (u.hostname !== host) u.hostname = host;
  return { host, url: u.href };
}

export interface Destinations {
  url: string;
  ios_url: string | null;
  android_url: string | null;
  /** Where an expired or used-up link sends visitors: a destination like the others. */
  expired_url?: string | null;
  /** Rules and split as stored (JSON text): their addresses are destinations too. */
  rules?: string | null;
  split?: string | null;
}

export class HostBlocklist {
  private consoleHosts = new Set<string>();
  private fileHosts = new Set<string>();
  /** Each feed's own tables (a lookup asks each: usually one or two feeds, never merged into a copy). */
  private feedHosts: readonly FeedTable[] = [];
  private feedUrls: readonly FeedTable[] = [];
  private feedKeys = 0;
  private readonly listeners: Array<() => void> = [];

  get size(): number {
    return this.consoleHosts.size + this.fileHosts.size + this.feedKeys;
  }

  /** Replaces the hosts added in the console (every instance loads them from the database). */
  setConsoleHosts(hosts: Iterable<string>): void {
    const next = new Set(hosts);
    // Unchanged (the periodic reload, a notification echoing our own write): keep the redirect cache.
    if (sameSet(next, this.consoleHosts)) return;
    this.consoleHosts = next;
    this.changed();
  }

  /** Replaces BLOCKLIST_FILE's hosts. */
  setFileHosts(hosts: Iterable<string>): void {
    const next = hosts instanceof Set ? (hosts as Set<string>) : new Set(hosts);
    if (sameSet(next, this.fileHosts)) return;
    this.fileHosts = next;
    this.changed();
  }

  /**
   * Replaces the threat feeds' entries (each feed's tables): hosts and exact addresses as feedKey gives them.
   * Whether they changed (an unchanged reload keeps the redirect cache).
   */
  setFeedEntries(hosts: readonly FeedTable[], urls: readonly FeedTable[]): boolean {
    if (sameTables(hosts, this.feedHosts) && sameTables(urls, this.feedUrls)) return false;
    this.feedHosts = hosts;
    this.feedUrls = urls;
    this.feedKeys = [...hosts, ...urls].reduce((n, t) => n + t.size, 0);
    this.changed();
    return true;
  }

  /** The threat feeds' entry a destination matches (its exact address, or its host or a parent's), or null. */
  feedMatch(url: string): string | null {
    if (this.feedKeys === 0) return null;
    const key = feedKey(url);
    if (key === null) return null;
    if (key.url !== null && inAny(this.feedUrls, key.url)) return key.url;
    return parentIn((h) => inAny(this.feedHosts, h), key.host);
  }

  /** How many hosts each source lists (the console's overview). */
  counts(): { console: number; file: number } {
    return { console: this.consoleHosts.size, file: this.fileHosts.size };
  }

  fromFile(host: string): boolean {
    return this.fileHosts.has(host);
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** The blocked entry that covers `host` (the host itself or a parent domain), or null. */
  match(host: string): string | null {
    if (this.size === 0) return null;
    return parentIn((h) => this.consoleHosts.has(h), host) ?? parentIn((h) => this.fileHosts.has(h), host) ?? parentIn((h) => inAny(this.feedHosts, h), host);
  }

  blocksUrl(url: string): boolean {
    if (this.size === 0) return false;
    // Parsed once for both questions (a cache miss asks them of each of the link's destinations).
    const u = parseUrl(url);
    if (u === null) return false;
    const host = hostOf(u);
    if (host !== null && this.match(host) !== null) return true;
    if (this.feedUrls.every((t) => t.size === 0)) return false;
    const key = feedKeyOf(u);
    return key !== null && key.url !== null && inAny(this.feedUrls, key.url);
  }

  /** Any of a link's destinations (main, iOS, Android, fallback, rules, split) on a blocked host. */
  blocksLink(l: Destinations): boolean {
    if (this.size === 0) return false;
    return destinationsOf(l).some((url) => this.blocksUrl(url));
  }

  /** The threat feeds' entry one of a link's destinations matches, or null (the console and file lists aside). */
  feedMatchOfLink(l: Destinations): string | null {
    if (this.feedKeys === 0) return null;
    for (const url of destinationsOf(l)) {
      const m = this.feedMatch(url);
      if (m !== null) return m;
    }
    return null;
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** Every address a link sends visitors to. */
function destinationsOf(l: Destinations): string[] {
  const urls: string[] = [];
  for (const url of [l.url, l.ios_url, l.android_url, l.expired_url]) if (url != null) urls.push(url);
  for (const text of [l.rules, l.split]) {
    if (text == null) continue;
    for (const { url } of JSON.parse(text) as { url: string }[]) urls.push(url);
  }
  return urls;
}

/** The entry among `host` and its parent domains that `listed` holds, nearest first, or null. */
function parentIn(listed: (host: string) => boolean, host: string): string | null {
  for (let h = host; ;) {
    if (listed(h)) return h;
    const dot = h.indexOf(".");
    if (dot < 0) return null;
    h = h.slice(dot + 1);
  }
}

function inAny(tables: readonly FeedTable[], key: string): boolean {
  for (const t of tables) if (t.has(key)) return true;
  return false;
}

function sameTables(a: readonly FeedTable[], b: readonly FeedTable[]): boolean {
  return a.length === b.length && a.every((t, i) => t.equals(b[i] as FeedTable));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
