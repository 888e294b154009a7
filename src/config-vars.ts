// One setting's readers for src/config.ts (a whole number, a flag, one of a list, a ratio, an http(s) URL): each refusal names its variable.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "./config-error.js";

export type Env = Record<string, string | undefined>;

export function intVar(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return dflt;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], dflt: T): T {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  if (!(values as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
}

export function boolVar(env: Env, name: string, dflt: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return dflt;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

export function ratioVar(env: Env, name: string, dflt: number): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  const n = Number(raw);
  if (!/^\d*\.?\d+(?:e-?\d+)?$/i.test(raw) || !(n >= 0 && n <= 1)) throw new ConfigError(name, `must be a number from 0 to 1, got "${raw}"`);
  return n;
}

export function httpUrlVar(env: Env, name: string): URL | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not an absolute URL`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ConfigError(name, "must start with http:// or https:// (OTLP over HTTP)");
  return u;
}

/** One THREAT_FEEDS entry: a feed format and a file (an absolute path after resolving) or an http(s) address. */
export interface ThreatFeedSetting {
  format: "urlhaus" | "phishtank";
  location: string;
}

/** THREAT_FEEDS: `urlhaus:/path/file.csv,phishtank:https://host/online-valid.csv`; a file must exist at start. */
export function threatFeedsVar(env: Env): ThreatFeedSetting[] {
  const raw = env.THREAT_FEEDS?.trim();
  if (!raw) return [];
  return raw.split(",").map((part) => {
    const entry = part.trim();
    const colon = entry.indexOf(":");
    const format = entry.slice(0, colon);
    const where = entry.slice(colon + 1).trim();
    if (colon < 0 || (format !== "urlhaus" && format !== "phishtank") || where === "")
      throw new ConfigError("THREAT_FEEDS", `"${entry}" must be urlhaus:<file or address> or phishtank:<file or address>`);
    if (/^https?:\/\//i.test(where)) {
      try {
        new URL(where);
      } catch {
        throw new ConfigError("THREAT_FEEDS", `"${where}" is not an absolute URL`);
      }
      return { format, location: where };
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(where)) throw new ConfigError("THREAT_FEEDS", `"${where}": a feed is a file or an http(s):// address`);
    const file = resolve(where);
    if (!existsSync(file)) throw new ConfigError("THREAT_FEEDS", `file not found: ${file}`);
    return { format, location: file };
  });
}
