// One setting's readers for src/config.ts (a whole number, a flag, one of a list, a ratio, an http(s) URL): each refusal names its variable.
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
