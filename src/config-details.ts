// Redirect and orphan-visit settings of src/config.ts (docs/configuration.md): the instance's default
// redirect status, how long browsers may keep a 301/308, and how orphan visits are bounded and kept.
import { ConfigError } from "./config-error.js";

type Env = Record<string, string | undefined>;

export interface DetailsConfig {
  /** REDIRECT_STATUS: what links without their own redirect_status answer (301, 302, 307 or 308; 302). */
  redirectStatus: number;
  /** REDIRECT_MAX_AGE: seconds of `Cache-Control: private, max-age=N` on 301 and 308 answers (3600). */
  redirectMaxAge: number;
  /** ORPHAN_VISITS: count requests that match no link (on unless "off"). */
  orphanVisits: boolean;
  /** ORPHAN_PATHS_PER_DAY: distinct path/referrer/device rows per host and day; the rest counts under "(other)". */
  orphanPathsPerDay: number;
  /** ORPHAN_VISITS_DAYS: days of orphan visits kept. */
  orphanVisitsDays: number;
}

function whole(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function detailsConfigOf(env: Env): DetailsConfig {
  const status = env.REDIRECT_STATUS?.trim() || "302";
  if (!["301", "302", "307", "308"].includes(status)) throw new ConfigError("REDIRECT_STATUS", `must be 301, 302, 307 or 308, got "${status}"`);
  const orphans = env.ORPHAN_VISITS?.trim() || "on";
  if (orphans !== "on" && orphans !== "off") throw new ConfigError("ORPHAN_VISITS", `must be on or off, got "${orphans}"`);
  return {
    redirectStatus: Number(status),
    redirectMaxAge: whole(env, "REDIRECT_MAX_AGE", 3600, 0, 31_536_000),
    orphanVisits: orphans === "on",
    orphanPathsPerDay: whole(env, "ORPHAN_PATHS_PER_DAY", 1000, 10, 1_000_000),
    orphanVisitsDays: whole(env, "ORPHAN_VISITS_DAYS", 90, 1, 3650),
  };
}
