// Turns a raw request (user agent, referrer, country, IP) into the stored click dimensions; no raw IP is kept.
import { UAParser } from "ua-parser-js";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import type { Reader, CountryResponse } from "maxmind";

export interface ClickDimensions {
  device: string;
  os: string;
  browser: string;
  isBot: boolean;
}

const uaCache = new LRUCache<string, ClickDimensions>({ max: 10_000 });

const DEVICE_TYPES = new Set(["mobile", "tablet", "console", "smarttv", "wearable", "embedded"]);

/** Device type, OS, browser and bot flag of a user agent; cached, since a few agents make most traffic. */
export function describeUserAgent(ua: string): ClickDimensions {
  const key = ua.slice(0, 512);
  const hit = uaCache.get(key);
  if (hit) return hit;
  const r = new UAParser(key).getResult();
  const bot = key === "" || isbot(key);
  const dims: ClickDimensions = {
    device: bot ? "bot" : DEVICE_TYPES.has(r.device.type ?? "") ? (r.device.type as string) : "desktop",
    os: clean(r.os.name) || "unknown",
    browser: clean(r.browser.name) || (bot ? "bot" : "unknown"),
    isBot: bot,
  };
  uaCache.set(key, dims);
  return dims;
}

/** A parsed name as stored: no control characters (PostgreSQL refuses NUL in text), at most 40 characters. */
function clean(name: string | undefined): string {
  return (name ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 40);
}

/** "::ffff:203.0.113.5" (how a dual-stack socket reports IPv4 clients) as plain "203.0.113.5". */
export function plainIp(ip: string): string {
  const m = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return m ? (m[1] as string) : ip;
}

/** The referrer's host name, "direct" when absent, "unknown" when unparseable. */
export function referrerHost(referer: string): string {
  if (!referer) return "direct";
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host ? host.slice(0, 253) : "unknown";
  } catch {
    return "unknown";
  }
}

/** Country resolution: a trusted proxy header first, then the GeoIP database, else "unknown". */
export class CountryResolver {
  constructor(private readonly reader: Reader<CountryResponse> | null) {}

  resolve(headerValue: string | null, ip: string): string {
    if (headerValue) {
      const c = headerValue.trim().toUpperCase();
      // XX / T1 are Cloudflare's "unknown" and "Tor" markers.
      if (/^[A-Z]{2}$/.test(c) && c !== "XX" && c !== "T1") return c;
    }
    if (this.reader && ip) {
      try {
        const code = this.reader.get(plainIp(ip))?.country?.iso_code;
        if (code && /^[A-Z]{2}$/.test(code)) return code;
      } catch {
        // not an IP the database understands
      }
    }
    return "unknown";
  }
}
