// The single sign-on settings of src/config.ts (docs/sso.md): the operator's instance-wide OpenID provider and
// the Enterprise member allowance. Read from the env object config.ts hands in; nothing here reads process.env.
import { ConfigError } from "./config-error.js";

type Env = Record<string, string | undefined>;

/** The instance-wide identity provider (OIDC_ISSUER and its companions); null when OIDC_ISSUER is unset. */
export interface InstanceOidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** OIDC_NAME: the sign-in page's "Sign in with …" label. */
  name: string;
  /** OIDC_OPERATOR_CLAIM and OIDC_OPERATOR_VALUE: a claim (string or list) holding the value makes the account an operator. */
  operatorClaim: string | null;
  operatorValue: string | null;
  /** OIDC_ONLY: no password sign-up or sign-in but operators' break-glass accounts. */
  only: boolean;
}

export interface SsoConfig {
  oidc: InstanceOidcConfig | null;
  /** ENTERPRISE_MEMBERS_MAX: the members single sign-on may make in an Enterprise team (invitations count apart). */
  enterpriseMembersMax: number;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** http:// is accepted for a provider on this machine only (a test, a sidecar); anywhere else https://. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function issuerOf(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError("OIDC_ISSUER", `"${raw}" is not an absolute URL`);
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopbackHost(u.hostname))) {
    throw new ConfigError("OIDC_ISSUER", "must start with https:// (http:// only for a provider on loopback)");
  }
  if (u.username || u.password || u.search || u.hash) throw new ConfigError("OIDC_ISSUER", "must not carry credentials, a query or a fragment");
  return u;
}

function boolOf(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

function instanceOidc(env: Env): InstanceOidcConfig | null {
  const rawIssuer = env.OIDC_ISSUER?.trim();
  const only = boolOf(env, "OIDC_ONLY");
  if (!rawIssuer) {
    for (const name of ["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_OPERATOR_CLAIM", "OIDC_OPERATOR_VALUE"]) {
      if (env[name]?.trim()) throw new ConfigError(name, "is set but OIDC_ISSUER is not");
    }
    if (only) throw new ConfigError("OIDC_ONLY", "needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    return null;
  }
  const clientId = env.OIDC_CLIENT_ID?.trim();
  const clientSecret = env.OIDC_CLIENT_SECRET?.trim();
  if (!clientId) throw new ConfigError("OIDC_CLIENT_ID", "is required with OIDC_ISSUER");
  if (!clientSecret) throw new ConfigError("OIDC_CLIENT_SECRET", "is required with OIDC_ISSUER");
  const operatorClaim = env.OIDC_OPERATOR_CLAIM?.trim() || null;
  const operatorValue = env.OIDC_OPERATOR_VALUE?.trim() || null;
  if ((operatorClaim === null) !== (operatorValue === null)) {
    throw new ConfigError(operatorClaim ? "OIDC_OPERATOR_VALUE" : "OIDC_OPERATOR_CLAIM", "OIDC_OPERATOR_CLAIM and OIDC_OPERATOR_VALUE go together");
  }
  const name = env.OIDC_NAME?.trim() || "single sign-on";
  if (name.length > 60 || /[\u0000-\u001f\u007f]/.test(name)) throw new ConfigError("OIDC_NAME", "must be at most 60 characters without control characters");
  return { issuer: issuerOf(rawIssuer), clientId, clientSecret, name, operatorClaim, operatorValue, only };
}

export function ssoConfigOf(env: Env): SsoConfig {
  const raw = env.ENTERPRISE_MEMBERS_MAX?.trim();
  let max = 50;
  if (raw) {
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000)
      throw new ConfigError("ENTERPRISE_MEMBERS_MAX", `must be a whole number from 1 to 100000, got "${raw}"`);
    max = Number(raw);
  }
  return { oidc: instanceOidc(env), enterpriseMembersMax: max };
}
