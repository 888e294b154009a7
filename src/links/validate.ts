// Validation of link fields: destination URLs, aliases, domain, expiry, click limit, password.
import { domainToASCII } from "node:url";
import { DomainError, invalid } from "../shared/errors.js";
import { type HostBlocklist, hostOfUrl } from "../admin/blocklist.js";
import { isReservedAlias } from "./reserved.js";

export const MAX_URL_LENGTH = 2048;
export const ALIAS_RE = /^[A-Za-z0-9_-]{3,64}$/;
export const MAX_CLICKS_LIMIT = 1_000_000_000;
export const MAX_LINK_PASSWORD = 200;
// Year 9999: anything later is a typo, and it keeps epoch ms well inside 2^53.
const MAX_TIME = Date.UTC(9999, 11, 31);

/**
 * Checks a destination address and returns it normalised (punycode host, percent-encoded path),
 * so the Location header is always plain ASCII. `ownHost` is BASE_URL's hostname: links to the
 * service itself would loop.
 */
export function normalizeDestination(raw: string, field: string, ownHost: string): string {
  const value = raw.trim();
  if (value === "") throw invalid(field, "is required");
  if (value.length > MAX_URL_LENGTH) throw invalid(field, `must be at most ${MAX_URL_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f\s]/.test(value)) throw invalid(field, "must not contain spaces or control characters");
  if (!/^https?:\/\//i.test(value)) throw invalid(field, "must be an absolute http:// or https:// address");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, "is not a valid address");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(field, "must be an absolute http:// or https:// address");
  if (url.username || url.password) throw invalid(field, "must not contain credentials");
  const host = url.hostname.toLowerCase();
  if (!isValidHost(host)) throw invalid(field, "has an invalid host name");
  if (host.replace(/\.$/, "") === ownHost.toLowerCase().replace(/\.$/, "")) throw invalid(field, "must not point to this service (it would loop)");
  const href = url.href;
  if (href.length > MAX_URL_LENGTH) throw invalid(field, `must be at most ${MAX_URL_LENGTH} characters`);
  return href;
}

/** destination_blocked when a (normalised) destination's host is on the operator's blocklist or under a blocked domain. */
export function refuseBlocked(deps: { blocklist: HostBlocklist }, urls: Record<"url" | "ios_url" | "android_url", string | null | undefined>): void {
  if (deps.blocklist.size === 0) return;
  const refused: { field: string; message: string }[] = [];
  for (const field of ["url", "ios_url", "android_url"] as const) {
    const url = urls[field];
    const host = url ? hostOfUrl(url) : null;
    const entry = host === null ? null : deps.blocklist.match(host);
    if (entry !== null) refused.push({ field, message: `links to ${entry} are blocked on this service` });
  }
  const first = refused[0];
  if (first) throw new DomainError("destination_blocked", `${first.field}: ${first.message}`, refused);
}

function isValidHost(host: string): boolean {
  if (host.startsWith("[") && host.endsWith("]")) return true; // IPv6 literal, already parsed by URL
  if (host.length === 0 || host.length > 253) return false;
  const ascii = domainToASCII(host);
  if (ascii === "" || ascii !== host) return false;
  const labels = host.replace(/\.$/, "").split(".");
  if (labels.some((l) => !/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l) && !/^xn--[a-z0-9-]{1,59}$/.test(l))) return false;
  // IPv4 literals are fine; otherwise a dotted name with an alphabetic top-level label (no "localhost"-like single labels).
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)) return true;
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1] ?? "";
  return /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld);
}

export function checkAlias(alias: string): string {
  if (!ALIAS_RE.test(alias)) throw invalid("alias", "must be 3 to 64 characters: letters, digits, '-' or '_'");
  if (isReservedAlias(alias)) throw invalid("alias", `"${alias}" is reserved`);
  return alias;
}

export function parseExpiry(value: string, now: number): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw invalid("expires_at", "must be an ISO-8601 date-time, e.g. 2026-11-21T10:00:00.000Z");
  if (t <= now) throw invalid("expires_at", "must be in the future");
  if (t > MAX_TIME) throw invalid("expires_at", "is too far in the future");
  return t;
}

export function checkMaxClicks(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_CLICKS_LIMIT) throw invalid("max_clicks", `must be a whole number from 1 to ${MAX_CLICKS_LIMIT}`);
  return value;
}

export function checkLinkPassword(value: string): string {
  if (value.length < 1) throw invalid("password", "must not be empty");
  if (value.length > MAX_LINK_PASSWORD) throw invalid("password", `must be at most ${MAX_LINK_PASSWORD} characters`);
  return value;
}
