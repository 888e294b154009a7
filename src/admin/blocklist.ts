// The destination blocklist as the redirect and link rules ask it: hosts (each with its subdomains) from
// the console and from BLOCKLIST_FILE, matched in memory; listeners hear of every change.

/** A host as the blocklist keys it: lowercase ASCII (IDN as punycode), no trailing dot; null if not a host name. */
export function normalizeHost(raw: string): string | null {
  const text = raw.trim().replace(/\.$/, "");
  if (text === "" || text.length > 253 || /[\s/?#@:]/.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return host === "" ? null : host;
  } catch {
    return null;
  }
}

/** The host of an http(s) address, normalised; null when it has none. */
export function hostOfUrl(url: string): string | null {
  try {
    const host = new URL(url).hostname.replace(/\.$/, "");
    return host === "" ? null : host.toLowerCase();
  } catch {
    return null;
  }
}

export interface Destinations {
  url: string;
  ios_url: string | null;
  android_url: string | null;
}

export class HostBlocklist {
  private consoleHosts = new Set<string>();
  private fileHosts = new Set<string>();
  private readonly listeners: Array<() => void> = [];

  get size(): number {
    return this.consoleHosts.size + this.fileHosts.size;
  }

  /** Replaces the hosts added in the console (every instance loads them from the database). */
  setConsoleHosts(hosts: Iterable<string>): void {
    this.consoleHosts = new Set(hosts);
    this.changed();
  }

  /** Replaces BLOCKLIST_FILE's hosts. */
  setFileHosts(hosts: Iterable<string>): void {
    this.fileHosts = new Set(hosts);
    this.changed();
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
    for (let h = host; ; ) {
      if (this.consoleHosts.has(h) || this.fileHosts.has(h)) return h;
      const dot = h.indexOf(".");
      if (dot < 0) return null;
      h = h.slice(dot + 1);
    }
  }

  blocksUrl(url: string): boolean {
    if (this.size === 0) return false;
    const host = hostOfUrl(url);
    return host !== null && this.match(host) !== null;
  }

  /** Any of a link's destinations (main, iOS, Android) on a blocked host. */
  blocksLink(l: Destinations): boolean {
    if (this.size === 0) return false;
    return this.blocksUrl(l.url) || (l.ios_url !== null && this.blocksUrl(l.ios_url)) || (l.android_url !== null && this.blocksUrl(l.android_url));
  }

  /** Hosts from each source (the operator console's overview). */
  counts(): { console: number; file: number } {
    return { console: this.consoleHosts.size, file: this.fileHosts.size };
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
