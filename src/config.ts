// The only reader of process.env: every setting typed, validated once and frozen.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { PRIVATE_FILE_MODE, makePrivateDir, makePrivateFile } from "./shared/private-files.js";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "./config-error.js";
import { type SsoConfig, ssoConfigOf } from "./config-sso.js";
import { type DetailsConfig, detailsConfigOf } from "./config-details.js";
import { type HealthConfig, healthConfigOf } from "./config-health.js";
import { type StreamConfig, streamConfigOf } from "./config-stream.js";
import { type Env, type ThreatFeedSetting, boolVar, httpUrlVar, intVar, oneOf, ratioVar, threatFeedsVar } from "./config-vars.js";

/** The package root, whether running from src/ (tsx) or dist/src/ (compiled). */
function packageRoot(): string {
  const dir = dirname(dirname(fileURLToPath(import.meta.url)));
  return basename(dir) === "dist" ? dirname(dir) : dir;
}

/** waitMs: DATABASE_WAIT_S, how long start-up waits for the database to answer. */
export type DatabaseConfig = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string; waitMs?: number };

export type TrustProxy = false | true | number | string[];

/** OTEL_TRACES_SAMPLER's values (the OpenTelemetry SDK's environment variables). */
export const TRACE_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** OpenTelemetry tracing (docs/operations.md, Traces): on when an OTLP endpoint is set. */
export interface TracingConfig {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL (grpc is not offered). */
  protocol: "http/protobuf" | "http/json";
  /** OTEL_SERVICE_NAME. */
  serviceName: string;
  sampler: (typeof TRACE_SAMPLERS)[number];
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the *traceidratio samplers. */
  samplerRatio: number;
  /** OTEL_REDIRECT_SAMPLE_RATIO: the share of fast-path redirects given a span (before the sampler decides). */
  redirectRatio: number;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: URL;
  /** Public origin without trailing slash, e.g. "http://localhost:8080". */
  origin: string;
  secureCookies: boolean;
  dataDir: string;
  database: DatabaseConfig;
  smtpUrl: string | null;
  mailFrom: string;
  dnsServers: string[];
  /** Custom domains' CNAME value (lowercase, no trailing dot); default BASE_URL's host. */
  cnameTarget: string;
  /** How often verified custom domains are checked again (their TXT record must stay). */
  domainRecheckMinutes: number;
  trustProxy: TrustProxy;
  countryHeader: string;
  geoipDb: string | null;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** LOG_FORMAT: JSON lines, or one coloured line per event and per request for a person at a terminal (auto: pretty on a terminal). */
  logFormat: "json" | "pretty";
  /** Secret for CSRF tokens and other HMACs; from SESSION_SECRET or DATA_DIR/secret. */
  sessionSecret: string;
  sessionTtlDays: number;
  /** DEEPLINK_MATCH_TTL (seconds, default 3600): how long a store visit's pending match waits for the app's first launch (docs/deep-links.md). */
  deeplinkMatchTtlMs: number;
  /** OPERATOR_REQUIRE_2FA: operator routes answer 403 2fa_setup_required to an operator without a second factor (default on in production). */
  operatorRequire2fa: boolean;
  linkCacheSize: number;
  clickFlushMs: number;
  clickRollupMs: number;
  /** SQLite: write clicks from a worker thread ("worker") or on the main thread ("inline"). */
  clickWriter: "worker" | "inline";
  /** WORKERS: HTTP processes on one port (node:cluster; docs/scaling.md); 1 is the single process; `auto` = os.availableParallelism(). */
  workers: number;
  /** Journal buffered clicks under DATA_DIR so that a killed server loses none (CLICK_JOURNAL=off: up to a flush interval or so is lost). */
  clickJournal: boolean;
  clickRetentionDays: number;
  /** CLICK_MEMORY_MAX: sealed clicks held in memory; past it the click journal alone holds them until the writer catches up. */
  clickMemoryMax: number;
  /** CLICK_BACKLOG_READY_S: /readyz answers 503 while the oldest unwritten click is older than this many seconds (0: off). */
  clickBacklogReadyS: number;
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may deliver to loopback and private addresses (tests, closed networks). */
  webhookAllowPrivate: boolean;
  /** IMPORT_ALLOW_PRIVATE: imports may read sources on loopback and private addresses (a self-hosted Shlink on the LAN, tests). */
  importAllowPrivate: boolean;
  /** BLOCKLIST_FILE: destination hosts refused besides the console's list, one per line; reloaded on change. */
  blocklistFile: string | null;
  /** THREAT_FEEDS: URLhaus and PhishTank CSV feeds (`format:path` or `format:https://...`), comma-separated. */
  threatFeeds: ThreatFeedSetting[];
  /** THREAT_FEED_REFRESH_S: how often a feed read from an address is fetched again. */
  threatFeedRefreshS: number;
  /** THREAT_FEED_ALLOW_PRIVATE: feeds may be fetched from loopback and private addresses (a mirror on the LAN, tests). */
  threatFeedAllowPrivate: boolean;
  /** Links created signed out per client address and hour. */
  signedOutLinksPerHour: number;
  /** 404 answers per client address and minute before the address gets 429 for a while (alias enumeration); 0: off. */
  notFoundPerMinute: number;
  /** Abuse reports per client address and hour (the public /report form). */
  reportsPerHour: number;
  /** HEADERS_TIMEOUT_MS: a connection's request headers must be complete this long after it opened or its previous answer. */
  headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: the whole request, body included, must be received in this time. */
  requestTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** METRICS_TOKEN: /metrics on the main port for `Authorization: Bearer <token>`; null: not served there. */
  metricsToken: string | null;
  /** METRICS_PORT: /metrics without a token on this port of 127.0.0.1 only; 0: no such listener. */
  metricsPort: number;
  /** DRAIN_DELAY_MS: after SIGTERM, /readyz answers 503 this long while requests are still served, then the server closes. */
  drainDelayMs: number;
  /** CONNECTIONS_PER_ADDRESS: open connections one client address (an IPv6 /64) may hold; trusted proxies are not capped; 0: off. */
  connectionsPerAddress: number;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and the OTEL_* settings with it; null: no tracing, no OpenTelemetry module loaded. */
  tracing: TracingConfig | null;
  webDir: string;
  /**
   * Settings read by modules of their own: `sso` OIDC_* and ENTERPRISE_MEMBERS_MAX (docs/sso.md); `details`
   * REDIRECT_STATUS, REDIRECT_MAX_AGE and ORPHAN_* (config-details.ts); `stream` STREAM_* (docs/stream.md).
   */
  sso: SsoConfig;
  details: DetailsConfig;
  stream: StreamConfig;
  /** LINK_CHECKS and LINK_CHECK_* (config-health.ts, docs/health.md). */
  health: HealthConfig;
}

export { ConfigError };

function metricsTokenOf(env: Env): string | null {
  const token = env.METRICS_TOKEN?.trim() || null;
  if (token !== null && token.length < 16) throw new ConfigError("METRICS_TOKEN", "must be at least 16 characters");
  return token;
}

/** The standard OpenTelemetry variables snip reads; the exporter itself reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and _CERTIFICATE. */
function tracingOf(env: Env): TracingConfig | null {
  const traces = httpUrlVar(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = httpUrlVar(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (boolVar(env, "OTEL_SDK_DISABLED", false) || env.OTEL_TRACES_EXPORTER?.trim() === "none" || (traces === null && base === null)) return null;
  const protocolVar = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  return {
    url: traces?.href ?? `${base?.href.replace(/\/$/, "")}/v1/traces`,
    protocol: oneOf(env, protocolVar, ["http/protobuf", "http/json"] as const, "http/protobuf"),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "snip",
    sampler: oneOf(env, "OTEL_TRACES_SAMPLER", TRACE_SAMPLERS, "parentbased_always_on"),
    samplerRatio: ratioVar(env, "OTEL_TRACES_SAMPLER_ARG", 1),
    redirectRatio: ratioVar(env, "OTEL_REDIRECT_SAMPLE_RATIO", 0.01),
  };
}

function logFormatOf(env: Env): Config["logFormat"] {
  const format = oneOf(env, "LOG_FORMAT", ["auto", "json", "pretty"] as const, "auto");
  if (format !== "auto") return format;
  return process.stdout.isTTY ? "pretty" : "json";
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const IP_OR_CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]+)(?:\/\d{1,3})?$/;

function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const parts = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0 || !parts.every((p) => IP_OR_CIDR.test(p) || p === "loopback" || p === "uniquelocal" || p === "linklocal")) {
    throw new ConfigError("TRUST_PROXY", `must be true, false, a hop count or comma-separated addresses/CIDRs, got "${raw}"`);
  }
  return parts;
}

function parseDnsServers(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "") return [];
  return raw.split(",").map((s) => {
    const v = s.trim();
    const m = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(v) ?? /^\[([0-9a-fA-F:]+)\](?::(\d{1,5}))?$/.exec(v);
    if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
      throw new ConfigError("DNS_SERVERS", `"${v}" is not ip:port`);
    }
    return v;
  });
}

const HOSTNAME_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function parseCnameTarget(raw: string | undefined, baseUrl: URL): string {
  // Unset: BASE_URL's host as it is (an address there only matters once someone adds a domain).
  if (!raw?.trim()) return baseUrl.hostname.toLowerCase().replace(/\.$/, "");
  const v = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!HOSTNAME_RE.test(v) || /^[\d.]+$/.test(v)) throw new ConfigError("CNAME_TARGET", `must be a host name (a CNAME cannot point at an address), got "${v}"`);
  return v;
}

function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, "secret");
  if (existsSync(file)) {
    makePrivateFile(file, false);
    const s = readFileSync(file, "utf8").trim();
    if (s.length >= 32) return s;
  }
  const s = randomBytes(32).toString("base64url");
  writeFileSync(file, s + "\n", { mode: PRIVATE_FILE_MODE });
  return s;
}

/**
 * Settings that may also come from a file named by <NAME>_FILE (the Docker and Kubernetes secrets
 * convention), so that a secret need not sit in the environment. A new secret setting joins here.
 */
export const SECRET_SETTINGS = ["SESSION_SECRET", "DATABASE_URL", "SMTP_URL", "METRICS_TOKEN", "OIDC_CLIENT_SECRET"] as const;

/** env with each <NAME>_FILE read into <NAME>; both given, or a file that cannot be read, is refused. */
function withSecretFiles(env: Env): Env {
  const out: Env = { ...env };
  for (const name of SECRET_SETTINGS) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) throw new ConfigError(name, `set both ${name} and ${name}_FILE; give only one`);
    try {
      // A secret file's trailing newline (echo, editors) is not part of the secret; the readers below trim too.
      out[name] = readFileSync(file, "utf8").trim();
    } catch (e) {
      throw new ConfigError(`${name}_FILE`, `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!out[name]) throw new ConfigError(`${name}_FILE`, `${file} is empty`);
  }
  return out;
}

/** Reads and validates configuration; throws ConfigError naming the first bad variable. */
// eslint-disable-next-line max-lines-per-function -- one line per setting, read in one place so that nothing else reads process.env
export function loadConfig(rawEnv: Env = process.env): Readonly<Config> {
  const env = withSecretFiles(rawEnv);
  const port = intVar(env, "PORT", 8080, 0, 65535);
  const host = env.HOST?.trim() || "127.0.0.1";
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host)) throw new ConfigError("HOST", `"${host}" is not a host name or address`);

  let baseUrl: URL;
  const rawBase = env.BASE_URL?.trim() || `http://localhost:${port}`;
  try {
    baseUrl = new URL(rawBase);
  } catch {
    throw new ConfigError("BASE_URL", `"${rawBase}" is not an absolute URL`);
  }
  if (baseUrl.protocol !== "http:" && baseUrl.protocol !== "https:") {
    throw new ConfigError("BASE_URL", "must start with http:// or https://");
  }
  if (baseUrl.pathname !== "/" || baseUrl.search || baseUrl.hash || baseUrl.username) {
    throw new ConfigError("BASE_URL", "must be an origin only (no path, query or credentials)");
  }

  const dataDir = resolve(env.DATA_DIR?.trim() || "./data");
  try {
    makePrivateDir(dataDir);
  } catch (e) {
    throw new ConfigError("DATA_DIR", `cannot create ${dataDir}: ${(e as Error).message}`);
  }

  let database: DatabaseConfig;
  const rawDb = env.DATABASE_URL?.trim();
  if (!rawDb) {
    database = { kind: "sqlite", file: join(dataDir, "snip.db") };
  } else if (/^postgres(ql)?:\/\//.test(rawDb)) {
    try {
      new URL(rawDb);
    } catch {
      throw new ConfigError("DATABASE_URL", "is not a valid postgres:// URL");
    }
    database = { kind: "postgres", url: rawDb, waitMs: intVar(env, "DATABASE_WAIT_S", 30, 0, 3_600) * 1000 };
  } else if (rawDb.startsWith("sqlite:")) {
    const p = rawDb.slice("sqlite:".length).replace(/^\/\//, "");
    if (!p) throw new ConfigError("DATABASE_URL", "sqlite: needs a file path");
    database = { kind: "sqlite", file: p === ":memory:" ? p : isAbsolute(p) ? p : resolve(p) };
  } else {
    throw new ConfigError("DATABASE_URL", "must start with postgres:// or sqlite:");
  }

  let smtpUrl: string | null = null;
  if (env.SMTP_URL?.trim()) {
    smtpUrl = env.SMTP_URL.trim();
    let u: URL;
    try {
      u = new URL(smtpUrl);
    } catch {
      throw new ConfigError("SMTP_URL", "is not a valid smtp:// or smtps:// URL");
    }
    if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new ConfigError("SMTP_URL", "must start with smtp:// or smtps://");
  }

  const logLevel = (env.LOG_LEVEL?.trim() || "info") as Config["logLevel"];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);

  const countryHeader = (env.COUNTRY_HEADER?.trim() || "cf-ipcountry").toLowerCase();
  if (!/^[a-z0-9-]+$/.test(countryHeader)) throw new ConfigError("COUNTRY_HEADER", "must be an HTTP header name");

  const geoipDb = env.GEOIP_DB?.trim() || null;
  if (geoipDb && !existsSync(geoipDb)) throw new ConfigError("GEOIP_DB", `file not found: ${geoipDb}`);

  let sessionSecret = env.SESSION_SECRET?.trim() || "";
  if (sessionSecret && sessionSecret.length < 32) throw new ConfigError("SESSION_SECRET", "must be at least 32 characters");
  if (!sessionSecret) sessionSecret = loadOrCreateSecret(dataDir);

  const blocklistFile = env.BLOCKLIST_FILE?.trim() ? resolve(env.BLOCKLIST_FILE.trim()) : null;
  if (blocklistFile && !existsSync(blocklistFile)) throw new ConfigError("BLOCKLIST_FILE", `file not found: ${blocklistFile}`);

  const threatFeeds = threatFeedsVar(env);

  const headersTimeoutMs = intVar(env, "HEADERS_TIMEOUT_MS", 10_000, 100, 600_000);
  const requestTimeoutMs = intVar(env, "REQUEST_TIMEOUT_MS", 60_000, 100, 3_600_000);
  // Node refuses a server whose headers may take longer than the whole request.
  if (requestTimeoutMs < headersTimeoutMs) throw new ConfigError("REQUEST_TIMEOUT_MS", `must be at least HEADERS_TIMEOUT_MS (${headersTimeoutMs})`);

  const mailFrom = env.MAIL_FROM?.trim() || `snip <no-reply@${baseUrl.hostname}>`;

  return Object.freeze({
    port,
    host,
    baseUrl,
    origin: baseUrl.origin,
    secureCookies: baseUrl.protocol === "https:",
    dataDir,
    database,
    smtpUrl,
    mailFrom,
    dnsServers: parseDnsServers(env.DNS_SERVERS),
    cnameTarget: parseCnameTarget(env.CNAME_TARGET, baseUrl),
    domainRecheckMinutes: intVar(env, "DOMAIN_RECHECK_MINUTES", 60, 1, 10_080),
    trustProxy: parseTrustProxy(env.TRUST_PROXY?.trim()),
    countryHeader,
    geoipDb,
    logLevel,
    logFormat: logFormatOf(env),
    sessionSecret,
    sessionTtlDays: intVar(env, "SESSION_TTL_DAYS", 30, 1, 365),
    deeplinkMatchTtlMs: intVar(env, "DEEPLINK_MATCH_TTL", 3_600, 60, 86_400) * 1000,
    operatorRequire2fa: boolVar(env, "OPERATOR_REQUIRE_2FA", env.NODE_ENV?.trim() === "production"),
    linkCacheSize: intVar(env, "LINK_CACHE_SIZE", 100_000, 0, 10_000_000),
    clickFlushMs: intVar(env, "CLICK_FLUSH_MS", 250, 10, 60_000),
    clickRollupMs: intVar(env, "CLICK_ROLLUP_MS", 5_000, 10, 600_000),
    clickWriter: oneOf(env, "CLICK_WRITER", ["worker", "inline"] as const, "worker"),
    workers: env.WORKERS?.trim() === "auto" ? availableParallelism() : intVar(env, "WORKERS", 1, 1, 256),
    clickJournal: oneOf(env, "CLICK_JOURNAL", ["on", "off"] as const, "on") === "on",
    clickRetentionDays: intVar(env, "CLICK_RETENTION_DAYS", 0, 0, 36_500),
    clickMemoryMax: intVar(env, "CLICK_MEMORY_MAX", 200_000, 1_000, 100_000_000),
    clickBacklogReadyS: intVar(env, "CLICK_BACKLOG_READY_S", 0, 0, 86_400),
    webhookAllowPrivate: boolVar(env, "WEBHOOK_ALLOW_PRIVATE", false),
    importAllowPrivate: boolVar(env, "IMPORT_ALLOW_PRIVATE", false),
    blocklistFile,
    threatFeeds,
    threatFeedRefreshS: intVar(env, "THREAT_FEED_REFRESH_S", 3_600, 60, 7 * 86_400),
    threatFeedAllowPrivate: boolVar(env, "THREAT_FEED_ALLOW_PRIVATE", false),
    signedOutLinksPerHour: intVar(env, "SIGNED_OUT_LINKS_PER_HOUR", 30, 1, 1_000_000),
    notFoundPerMinute: intVar(env, "NOT_FOUND_PER_MINUTE", 120, 0, 1_000_000),
    reportsPerHour: intVar(env, "REPORTS_PER_HOUR", 5, 1, 10_000),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: intVar(env, "KEEP_ALIVE_TIMEOUT_MS", 72_000, 100, 3_600_000),
    drainDelayMs: intVar(env, "DRAIN_DELAY_MS", 0, 0, 60_000),
    metricsToken: metricsTokenOf(env),
    metricsPort: intVar(env, "METRICS_PORT", 0, 0, 65_535),
    connectionsPerAddress: intVar(env, "CONNECTIONS_PER_ADDRESS", 256, 0, 1_000_000),
    tracing: tracingOf(env),
    webDir: resolve(env.WEB_DIR?.trim() || join(packageRoot(), "dist", "web")),
    sso: ssoConfigOf(env),
    details: detailsConfigOf(env),
    stream: streamConfigOf(env),
    health: healthConfigOf(env),
  });
}
