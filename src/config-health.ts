// Link health settings of src/config.ts (docs/health.md): whether destinations are checked, how often, how fast
// each request must answer, and the limits that keep the checker from flooding anyone.
import { ConfigError } from "./config-error.js";
import { intVar } from "./config-vars.js";

type Env = Record<string, string | undefined>;

export interface HealthConfig {
  /** LINK_CHECKS: "on" (default) or "off". */
  enabled: boolean;
  /** LINK_CHECK_INTERVAL: between two checks of one destination (ms; default 1d). */
  intervalMs: number;
  /** LINK_CHECK_TIMEOUT_MS: one request, from connecting to the answer's headers (10 000). */
  timeoutMs: number;
  /** LINK_CHECK_BUDGET_PER_HOUR: requests this instance sends per clock hour at most (3600). */
  budgetPerHour: number;
  /** LINK_CHECK_HOST_CONCURRENCY: requests in flight to one host at most (2). */
  hostConcurrency: number;
  /** LINK_CHECK_HOST_RATE: requests started per second to one host at most (1). */
  hostRate: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "6h", "1d" (or a bare number of seconds) as milliseconds, between min and max. */
export function durationVar(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(raw);
  if (!m) throw new ConfigError(name, `must be a duration such as 30m, 6h or 1d, got "${raw}"`);
  const ms = Number(m[1]) * (UNITS[m[2] ?? "s"] as number);
  if (ms < min || ms > max) throw new ConfigError(name, `must be between ${min / 1000} s and ${max / 86_400_000} days, got "${raw}"`);
  return ms;
}

export function healthConfigOf(env: Env): HealthConfig {
  const checks = env.LINK_CHECKS?.trim() || "on";
  if (checks !== "on" && checks !== "off") throw new ConfigError("LINK_CHECKS", `must be on or off, got "${checks}"`);
  return {
    enabled: checks === "on",
    intervalMs: durationVar(env, "LINK_CHECK_INTERVAL", 86_400_000, 60_000, 90 * 86_400_000),
    timeoutMs: intVar(env, "LINK_CHECK_TIMEOUT_MS", 10_000, 50, 120_000),
    budgetPerHour: intVar(env, "LINK_CHECK_BUDGET_PER_HOUR", 3600, 1, 10_000_000),
    hostConcurrency: intVar(env, "LINK_CHECK_HOST_CONCURRENCY", 2, 1, 2),
    hostRate: intVar(env, "LINK_CHECK_HOST_RATE", 1, 1, 10_000),
  };
}
