// Validation of link fields: destination URLs, aliases, domain, expiry, click limit, password.
import { domainToASCII } from "node:url";
import { DomainError, invalid } from "../shared/errors.js";
import { type HostBlocklist, hostOfUrl } from "./host-blocklist.js";
import { isReservedAlias } from "./reserved.js";
import { ALIAS_RE, MAX_CLICKS_LIMIT, MAX_LINK_PASSWORD, MAX_URL_LENGTH, MESSAGES } from "../contract/form-rules.js";

export { ALIAS_RE, MAX_CLICKS_LIMIT, MAX_LINK_PASSWORD, MAX_URL_LENGTH };
// Year 9999: anything later is a typo, and it keeps epoch ms well inside 2^53.
const MAX_TIME = Date.UTC(9999, 11, 31);

/**
 * Checks a destination address and returns it normalised (punycode host, percent-encoded path),
 * so the Location header is always plain ASCII. `ownHost` is BASE_URL's hostname: links to the
 * service itself would loop.
 */
export function normalizeDestination(raw: string, field: string, ownHost: string): string {
  const value = raw.trim();
  if (value === "") throw invalid(field, MESSAGES.urlRequired);
  if (value.length > MAX_URL_LENGTH) throw invalid(field, MESSAGES.urlTooLong);
  // Words with spaces and no scheme (`not a url`) are no address at all: the spaces are not what is wrong.
  if (!/^https?:\/\//i.test(value)) throw invalid(field, MESSAGES.urlNotFull);
  if (/[\u0000-\u001f\u007f\s]/.test(value)) throw invalid(field, MESSAGES.urlSpaces);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, MESSAGES.urlNotFull);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(field, MESSAGES.urlNotFull);
  if (url.username || url.password) throw invalid(field, MESSAGES.urlCredentials);
  const host = url.hostname.toLowerCase();
  // Before the host name's own check: this service's host (localhost on a laptop) would read as "not valid".
  if (host.replace(/\.$/, "") === ownHost.toLowerCase().replace(/\.$/, "")) throw invalid(field, MESSAGES.urlLoops);
  if (!isValidHost(host)) throw invalid(field, MESSAGES.urlBadHost);
  const href = url.href;
  if (href.length > MAX_URL_LENGTH) throw invalid(field, MESSAGES.urlTooLong);
  return href;
}

/** destination_blocked when a (normalised) destination's host is on the operator's blocklist or under a blocked domain. */
export function refuseBlocked(
  deps: { blocklist: HostBlocklist },
  urls: Partial<Record<"url" | "ios_url" | "android_url" | "expired_url", string | null | undefined>>,
  more: { field: string; url: string }[] = [],
): void {
  if (deps.blocklist.size === 0) return;
  const refused: { field: string; message: string }[] = [];
  const all = [...(["url", "ios_url", "android_url", "expired_url"] as const).map((field) => ({ field, url: urls[field] })), ...more];
  for (const { field, url } of all) {
    if (!url) continue;
    const host = hostOfUrl(url);
    const entry = host === null ? null : deps.blocklist.match(host);
    if (entry !== null) refused.push({ field, message: MESSAGES.hostBlocked(entry) });
    else if (deps.blocklist.blocksUrl(url)) refused.push({ field, message: MESSAGES.urlListed });
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
  if (!ALIAS_RE.test(alias)) throw invalid("alias", MESSAGES.alias);
  if (isReservedAlias(alias)) throw invalid("alias", MESSAGES.aliasReserved(alias));
  return alias;
}

export function parseExpiry(value: string, now: number): number {
  const t = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(t)) throw invalid("expires_at", MESSAGES.expiryFormat);
  if (t <= now) throw invalid("expires_at", MESSAGES.expiryPast);
  if (t > MAX_TIME) throw invalid("expires_at", MESSAGES.expiryTooFar);
  return t;
}

export function checkMaxClicks(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_CLICKS_LIMIT) throw invalid("max_clicks", MESSAGES.maxClicks);
  return value;
}

export function checkLinkPassword(value: string): string {
  if (value.length < 1) throw invalid("password", MESSAGES.linkPasswordEmpty);
  if (value.length > MAX_LINK_PASSWORD) throw invalid("password", MESSAGES.linkPasswordLong);
  return value;
}
