// An account's broker URL: its scheme must fit its kind, its host is checked like a webhook receiver's
// (every DNS answer public unless WEBHOOK_ALLOW_PRIVATE), its password never shown again (sealed).
import { BROKER_SCHEMES } from "../config-stream.js";
import { type ReceiverCheck, ReceiverRefused } from "../webhooks/receiver-check.js";
import { BROKER_KINDS, type BrokerKind, brokerKind } from "../contract/broker-kinds.js";

export const MAX_BROKER_URL = 2048;
/** Each scheme's port when the URL names none (contract/broker-kinds.ts). */
const DEFAULT_PORTS: Record<string, string> = Object.fromEntries(
  BROKER_KINDS.flatMap((k) => Object.entries(k.schemes).map(([scheme, port]) => [scheme, String(port)])),
);

/** Added to a loopback or private address's refusal: the operator's setting that accepts it. */
const PRIVATE_HINT = "; the server's operator can accept brokers on loopback and private networks with WEBHOOK_ALLOW_PRIVATE=true";

/** Why a broker URL is refused, for the person who entered it. */
export class BrokerUrlRefused extends Error {
  override name = "BrokerUrlRefused";
}

/** The URL parsed and its scheme checked against the kind (no network). */
export function parseBrokerUrl(raw: string, kind: BrokerKind): URL {
  if (raw.length > MAX_BROKER_URL) throw new BrokerUrlRefused(`must be at most ${MAX_BROKER_URL} characters`);
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) throw new BrokerUrlRefused("must not contain spaces or control characters");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BrokerUrlRefused("is not a URL");
  }
  const schemes = BROKER_SCHEMES[kind];
  if (!schemes.includes(url.protocol)) throw new BrokerUrlRefused(`must start with ${schemes.map((s) => s + "//").join(" or ")} for ${kind}`);
  if (!url.hostname) throw new BrokerUrlRefused("must name a host");
  if (url.hash) throw new BrokerUrlRefused("must not have a #fragment");
  const path = brokerKind(kind).path;
  if (path && !path.pattern.test(url.pathname)) throw new BrokerUrlRefused(path.rule);
  return url;
}

/** What the API shows: the URL with its password replaced by "***". */
export function redactedUrl(url: URL): string {
  if (!url.password) return url.href;
  const copy = new URL(url.href);
  copy.password = "***";
  return copy.href;
}

/** The host's checked address to connect to, or BrokerUrlRefused (a private or reserved address, a name that does not resolve). */
export async function checkBrokerHost(check: ReceiverCheck, url: URL): Promise<string> {
  const port = url.port || DEFAULT_PORTS[url.protocol] || "";
  try {
    // The receiver check takes an https:// address: the same host and port, checked the same way.
    return (await check.check(`https://${url.host.includes(":") || !port ? url.host : `${url.hostname}:${port}`}/`, "custom")).address;
  } catch (e) {
    // A broker on this machine or the local network is common: say which setting lets the server reach it.
    if (e instanceof ReceiverRefused) throw new BrokerUrlRefused(e.allowablePrivate ? `${e.message}${PRIVATE_HINT}` : e.message);
    throw e;
  }
}
