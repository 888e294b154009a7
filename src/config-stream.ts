// The click stream's settings of src/config.ts (docs/stream.md, docs/configuration.md): the operator's
// brokers and the outbox's bounds. Read from the env object config.ts hands in; nothing here reads process.env.
import { ConfigError } from "./config-error.js";
import { BROKER_KINDS, type BrokerKind, brokerKind } from "./contract/broker-kinds.js";

type Env = Record<string, string | undefined>;

/** Each kind's operator broker (its setting in contract/broker-kinds.ts, e.g. STREAM_AMQP_URL): null when unset. */
export type StreamBrokerUrls = { [K in BrokerKind]: string | null };

export interface StreamConfig extends StreamBrokerUrls {
  /** STREAM_OUTBOX_MAX: events kept per broker while it is away; past it new clicks are not queued for it. */
  outboxMax: number;
  /** STREAM_REDIS_MAXLEN: XADD snip:clicks MAXLEN ~ N. */
  redisMaxLen: number;
  /** STREAM_TIMEOUT_MS: bound on connecting to a broker and on each publish round. */
  timeoutMs: number;
  /** STREAM_POLL_MS: how often an idle publisher looks at the outbox. */
  pollMs: number;
}

/** Each kind's URL schemes, with the colon. */
export const BROKER_SCHEMES = Object.fromEntries(BROKER_KINDS.map((k) => [k.kind, Object.keys(k.schemes)])) as Record<BrokerKind, string[]>;

function brokerUrl(env: Env, name: string, kind: BrokerKind): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, "must be a URL");
  }
  if (!BROKER_SCHEMES[kind].includes(url.protocol)) throw new ConfigError(name, `must start with ${BROKER_SCHEMES[kind].map((s) => s + "//").join(" or ")}`);
  if (!url.hostname) throw new ConfigError(name, "must name a host");
  const path = brokerKind(kind).path;
  if (path && !path.pattern.test(url.pathname)) throw new ConfigError(name, path.rule);
  return raw;
}

function int(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, "must be a whole number");
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return n;
}

export function streamConfigOf(env: Env): StreamConfig {
  const urls = Object.fromEntries(BROKER_KINDS.map((k) => [k.kind, brokerUrl(env, k.setting, k.kind)])) as StreamBrokerUrls;
  return {
    ...urls,
    outboxMax: int(env, "STREAM_OUTBOX_MAX", 1_000_000, 1_000, 1_000_000_000),
    redisMaxLen: int(env, "STREAM_REDIS_MAXLEN", 1_000_000, 1_000, 1_000_000_000),
    timeoutMs: int(env, "STREAM_TIMEOUT_MS", 5_000, 100, 120_000),
    pollMs: int(env, "STREAM_POLL_MS", 250, 10, 60_000),
  };
}
