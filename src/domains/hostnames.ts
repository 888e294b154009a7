// Hostnames of custom domains: what an account may add (lowercase, IDN to punycode, no address, not
// the service's own host), and the lenient form a Host header or a TLS proxy's question is looked up by.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { invalid } from "../shared/errors.js";
import { MESSAGES, typedHostname } from "../contract/form-rules.js";

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level label is alphabetic (or an IDN): "1.2.3" and "0x7f.1" are address spellings, not names. */
const TLD_RE = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
export const MAX_HOSTNAME = 253;

/** The stored form of a hostname the user typed; throws invalid_request (field "hostname") otherwise. */
export function normalizeHostname(raw: string, reserved: readonly string[], field = "hostname"): string {
  const typed = typedHostname(raw);
  if (typed === "") throw invalid(field, MESSAGES.hostnameRequired);
  if (typed.length > 300) throw invalid(field, `must be at most ${MAX_HOSTNAME} characters`);
  if (isIP(typed.replace(/^\[(.*)\]$/, "$1")) !== 0) throw invalid(field, MESSAGES.hostnameIp);
  if (/[/:@\s?#]/.test(typed)) throw invalid(field, MESSAGES.hostnameAlone);
  const lower = typed.toLowerCase().replace(/\.$/, "");
  const ascii = domainToASCII(lower);
  if (ascii === "") throw invalid(field, MESSAGES.hostnameInvalid);
  if (isIP(ascii) !== 0) throw invalid(field, MESSAGES.hostnameIp);
  const labels = ascii.split(".");
  if (ascii.length > MAX_HOSTNAME || labels.length < 2 || !labels.every((l) => LABEL_RE.test(l)) || !TLD_RE.test(labels[labels.length - 1] as string)) {
    throw invalid(field, MESSAGES.hostnameInvalid);
  }
  if (reserved.includes(ascii)) throw invalid(field, MESSAGES.hostnameOwn);
  return ascii;
}

/** A hostname as asked for (Host header, TLS proxy): lowercase, one trailing dot dropped; "" when it cannot be one. */
export function lookupForm(raw: string): string {
  const h = raw.trim().toLowerCase();
  const v = h.endsWith(".") ? h.slice(0, -1) : h;
  return v.length > 0 && v.length <= MAX_HOSTNAME && /^[a-z0-9.-]+$/.test(v) ? v : "";
}
