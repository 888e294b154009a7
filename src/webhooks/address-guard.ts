// SSRF guard for webhook receivers: which IP addresses are internal, and which receiver URLs are acceptable.
import { BlockList, isIP } from "node:net";
import type { WebhookKind } from "../contract/webhooks.js";

/** Why an address is refused; "private" and "loopback" are what WEBHOOK_ALLOW_PRIVATE lets through. */
export type AddressClass =
  "public" | "loopback" | "private" | "link-local" | "cgnat" | "multicast" | "reserved" | "unspecified" | "unique-local" | "ipv4-mapped";

type Range = [net: string, prefix: number, cls: Exclude<AddressClass, "public">];

// IANA special-purpose registries (RFC 6890 and successors): every block that is not globally routable
// unicast, plus the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo), which could
// reach an internal IPv4 host through a translator.
const V4: Range[] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const V6: Range[] = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["::ffff:0:0", 96, "ipv4-mapped"],
  ["::", 96, "ipv4-mapped"],
  ["64:ff9b::", 96, "ipv4-mapped"],
  ["64:ff9b:1::", 48, "ipv4-mapped"],
  ["100::", 64, "reserved"],
  ["2001::", 23, "reserved"],
  ["2001:db8::", 32, "reserved"],
  ["2002::", 16, "ipv4-mapped"],
  ["3fff::", 20, "reserved"],
  ["5f00::", 16, "reserved"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "link-local"],
  ["ff00::", 8, "multicast"],
];

// One list per class and family: a BlockList matches IPv4 rules against IPv4-mapped IPv6 addresses and
// IPv6 rules such as ::/96 against plain IPv4 ones, so the families are never mixed.
const lists = { ipv4: new Map<Exclude<AddressClass, "public">, BlockList>(), ipv6: new Map<Exclude<AddressClass, "public">, BlockList>() };
for (const [net, prefix, cls] of [...V4, ...V6]) {
  const type = net.includes(":") ? "ipv6" : "ipv4";
  let list = lists[type].get(cls);
  if (!list) lists[type].set(cls, (list = new BlockList()));
  list.addSubnet(net, prefix, type);
}
// Most specific first: "::1" is loopback although it also lies in ::/96.
const ORDER: Exclude<AddressClass, "public">[] = [
  "loopback",
  "unspecified",
  "private",
  "cgnat",
  "link-local",
  "unique-local",
  "multicast",
  "ipv4-mapped",
  "reserved",
];

/** The class of an IP address in canonical form (as the URL parser or a resolver gives it). */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 0) return "reserved";
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const cls of ORDER) if (lists[type].get(cls)?.check(ip, type)) return cls;
  return "public";
}

/** Internal addresses WEBHOOK_ALLOW_PRIVATE lets through; link-local (cloud metadata) and the rest never. */
const PRIVATE_OK: ReadonlySet<AddressClass> = new Set(["loopback", "private", "unique-local"]);

export function addressAllowed(ip: string, allowPrivate: boolean): { ok: true } | { ok: false; cls: AddressClass } {
  const cls = classifyAddress(ip);
  if (cls === "public" || (allowPrivate && PRIVATE_OK.has(cls))) return { ok: true };
  return { ok: false, cls };
}

export type { WebhookKind };
export const WEBHOOK_KINDS: readonly WebhookKind[] = ["custom", "slack", "discord", "teams"];

/**
 * The chat tools' webhook hosts (docs/webhooks.md lists them): an exact name, or ".suffix" for any
 * name under it. Teams: the classic Office 365 connectors and the Workflows (Power Automate) URLs.
 */
export const CONNECTOR_HOSTS: Readonly<Record<Exclude<WebhookKind, "custom">, readonly string[]>> = {
  slack: ["hooks.slack.com"],
  discord: ["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"],
  teams: [".webhook.office.com", "outlook.office.com", "outlook.office365.com", ".logic.azure.com", ".environment.api.powerplatform.com"],
};

export function isConnectorHost(kind: Exclude<WebhookKind, "custom">, hostname: string): boolean {
  return CONNECTOR_HOSTS[kind].some((h) => (h.startsWith(".") ? hostname.endsWith(h) && hostname.length > h.length : hostname === h));
}

export const MAX_URL_LENGTH = 2048;

/** A receiver URL as the guard reads it: the parsed URL and its host (IPv6 without brackets). */
export interface ReceiverUrl {
  url: URL;
  /** Hostname without brackets, lowercased; an IP literal in canonical form. */
  host: string;
  /** The host is an IP literal (no DNS). */
  literal: boolean;
}

/**
 * Parses and checks what can be checked without DNS: https only (http too with `http`), no credentials, a host. The WHATWG
 * parser turns decimal, octal and hex IPv4 spellings ("2130706433", "0177.0.0.1", "0x7f.1") into dotted
 * form, so the address checks see every spelling as the address it is. Throws a message on refusal.
 */
export function parseReceiverUrl(raw: string, opts: { http?: boolean } = {}): ReceiverUrl {
  if (raw.length > MAX_URL_LENGTH) throw new Error(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(opts.http ? "must be an absolute http:// or https:// URL" : "must be an absolute https:// URL");
  }
  // Import sources (self-hosted Shlink, YOURLS, Kutt on a LAN) may speak plain http; webhooks never.
  if (opts.http) {
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("must use http:// or https://");
  } else if (url.protocol !== "https:") throw new Error("must use https://");
  if (url.username || url.password) throw new Error("must not contain a user name or password");
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  if (!host) throw new Error("must name a host");
  return { url, host, literal: isIP(host) !== 0 };
}

export function describeClass(cls: AddressClass): string {
  switch (cls) {
    case "loopback":
      return "a loopback address";
    case "private":
      return "a private address";
    case "link-local":
      return "a link-local address (cloud metadata lives there)";
    case "cgnat":
      return "a carrier-grade NAT address";
    case "multicast":
      return "a multicast address";
    case "unspecified":
      return "an unspecified address";
    case "unique-local":
      return "an IPv6 unique-local address";
    case "ipv4-mapped":
      return "an IPv6 address embedding an IPv4 address";
    default:
      return "a reserved address";
  }
}
