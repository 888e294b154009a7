// Turns a raw request (user agent, referrer, country, IP) into the stored click dimensions; no raw IP is kept.
import { UAParser } from "ua-parser-js";
import { isbot } from "isbot";
import type { Reader, CityResponse } from "maxmind";

export interface ClickDimensions {
  device: string;
  os: string;
  browser: string;
  isBot: boolean;
}

/**
 * Agents described lately, in two generations of at most UA_GENERATION each: a hit in the older one is
 * copied into the newer one, and a full newer one becomes the older one. A hit is one or two Map lookups
 * (an LRU list moved a node per hit: a fifth of a redirect rule's evaluation), and the agents in use stay.
 */
const UA_GENERATION = 5_000;
let uaNewer = new Map<string, ClickDimensions>();
let uaOlder = new Map<string, ClickDimensions>();

function rememberAgent(key: string, dims: ClickDimensions): void {
  if (uaNewer.size >= UA_GENERATION) {
    uaOlder = uaNewer;
    uaNewer = new Map();
  }
  uaNewer.set(key, dims);
}

const DEVICE_TYPES = new Set(["mobile", "tablet", "console", "smarttv", "wearable", "embedded"]);

/** Device type, OS, browser and bot flag of a user agent; cached, since a few agents make most traffic. */
export function describeUserAgent(ua: string): ClickDimensions {
  const key = ua.slice(0, 512);
  const hit = uaNewer.get(key);
  if (hit !== undefined) return hit;
  const older = uaOlder.get(key);
  if (older !== undefined) {
    rememberAgent(key, older);
    return older;
  }
  const r = new UAParser(key).getResult();
  const bot = key === "" || isbot(key);
  const dims: ClickDimensions = {
    device: bot ? "bot" : DEVICE_TYPES.has(r.device.type ?? "") ? (r.device.type as string) : "desktop",
    os: clean(r.os.name) || "unknown",
    browser: clean(r.browser.name) || (bot ? "bot" : "unknown"),
    isBot: bot,
  };
  rememberAgent(key, dims);
  return dims;
}

/** A parsed name as stored: no control characters (PostgreSQL refuses NUL in text), at most 40 characters. */
function clean(name: string | undefined): string {
  return (name ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 40);
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

/** Longest referrer URL kept (scheme, host and path). */
export const REFERRER_URL_MAX = 300;

/**
 * The referrer's URL without query string and fragment (which may carry anyone's search terms or tokens):
 * scheme, lowercase host (and port) and path, at most REFERRER_URL_MAX characters; null when there is no
 * referrer or it is not an http(s) URL.
 */
export function referrerUrl(referer: string): string | null {
  if (!referer) return null;
  try {
    const u = new URL(referer);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.host === "") return null;
    return `${u.protocol}//${u.host}${u.pathname}`.slice(0, REFERRER_URL_MAX);
  } catch {
    return null;
  }
}

/** Where a click came from: country code (or "unknown"), and with a City database its region and city values (null when unknown). */
export interface Place {
  country: string;
  /** "FR-IDF|Île-de-France": ISO 3166-2 code, then the English name (the code when the database has none). */
  region: string | null;
  /** "FR-IDF|Paris": the region's code (the country's when none), then the city's English name. */
  city: string | null;
}

const ISO_COUNTRY = /^[A-Z]{2}$/;
const ISO_SUBDIVISION = /^[A-Z0-9]{1,3}$/;

/** A name from the database as stored: no control characters and no "|" (the values' separator), at most 80 characters. */
function placeName(name: string | undefined): string {
  return (name ?? "")
    .replace(/[\u0000-\u001f\u007f|]/g, "")
    .trim()
    .slice(0, 80);
}

/** Country resolution: a trusted proxy header first, then the GeoIP database, else "unknown"; regions and cities from a City database. */
export class CountryResolver {
  constructor(private readonly reader: Reader<CityResponse> | null) {}

  resolve(headerValue: string | null, ip: string): string {
    return this.place(headerValue, ip).country;
  }

  /** The country as `resolve` finds it; region and city only from a City database whose record is of that country. */
  place(headerValue: string | null, ip: string): Place {
    let country = "unknown";
    if (headerValue) {
      const c = headerValue.trim().toUpperCase();
      // XX / T1 are Cloudflare's "unknown" and "Tor" markers.
      if (ISO_COUNTRY.test(c) && c !== "XX" && c !== "T1") country = c;
    }
    let record: CityResponse | null = null;
    if (this.reader && ip) {
      try {
        record = this.reader.get(plainIp(ip));
      } catch {
        // not an IP the database understands
      }
    }
    const code = record?.country?.iso_code;
    if (country === "unknown" && code && ISO_COUNTRY.test(code)) country = code;
    if (record === null || code !== country) return { country, region: null, city: null };
    return { country, ...finerPlace(country, record) };
  }
}

/** A City database record's region and city values (a Country database's records have neither). */
function finerPlace(country: string, record: CityResponse): { region: string | null; city: string | null } {
  const sub = record.subdivisions?.[0];
  const subCode = sub?.iso_code?.toUpperCase();
  const regionCode = subCode && ISO_SUBDIVISION.test(subCode) ? `${country}-${subCode}` : null;
  const region = regionCode === null ? null : `${regionCode}|${placeName(sub?.names?.en) || regionCode}`;
  const cityName = placeName(record.city?.names?.en);
  return { region, city: cityName === "" ? null : `${regionCode ?? country}|${cityName}` };
}

/** A region value's code and name ("FR-IDF|Île-de-France"). */
export function regionParts(value: string): { region: string; name: string } {
  const bar = value.indexOf("|");
  return bar < 0 ? { region: value, name: value } : { region: value.slice(0, bar), name: value.slice(bar + 1) };
}

/** A city value's name, country and region code (null when the city's record had no region). */
export function cityParts(value: string): { city: string; country: string; region: string | null } {
  const bar = value.indexOf("|");
  const place = bar < 0 ? "" : value.slice(0, bar);
  return { city: value.slice(bar + 1), country: place.slice(0, 2), region: place.length > 2 ? place : null };
}
