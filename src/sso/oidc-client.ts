// openid-client's configuration per provider (discovered once, kept a few minutes), and the fetch an
// Enterprise provider is reached through: every address checked like a webhook receiver and connected to
// as checked (a pinned lookup), answers bounded in time and size. The operator's own provider (OIDC_ISSUER)
// may be anywhere, an internal Keycloak included, and is reached with the plain fetch.
import * as oidc from "openid-client";
import { Agent, fetch as undiciFetch } from "undici";
import { sha256Hex } from "../shared/ids.js";
import { DomainError } from "../shared/errors.js";
import type { ReceiverCheck } from "../webhooks/receiver-check.js";
import { pinnedLookup } from "../webhooks/send.js";

/** One provider answer (discovery, keys, token, user info) within this time and size. */
export const PROVIDER_TIMEOUT_MS = 10_000;
export const PROVIDER_MAX_BYTES = 1024 * 1024;
/** A discovered provider is reused this long (its keys are fetched again by openid-client when they rotate). */
const DISCOVERY_TTL_MS = 10 * 60_000;

export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** An Enterprise owner's provider: reached only through the address guard. */
  guarded: boolean;
}

async function readBounded(res: Response): Promise<Buffer> {
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > PROVIDER_MAX_BYTES) {
      await reader.cancel();
      throw new Error("the identity provider's answer is too large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The fetch for Enterprise providers: the address checked (WEBHOOK_ALLOW_PRIVATE lets loopback and private through), then pinned. */
export function guardedFetch(check: ReceiverCheck): oidc.CustomFetch {
  return async (url, options) => {
    const u = new URL(url);
    let receiver;
    try {
      receiver = await check.check(url, "custom", { http: u.protocol === "http:" && check.allowPrivate });
    } catch (e) {
      throw new DomainError("sso_failed", `The identity provider's address is refused: ${(e as Error).message}`, undefined, { reason: "provider_address" });
    }
    const agent = new Agent({ connect: { lookup: pinnedLookup(receiver.address, receiver.family), timeout: PROVIDER_TIMEOUT_MS } });
    try {
      const res = await undiciFetch(url, {
        method: options.method,
        headers: options.headers as Record<string, string>,
        body: options.body as string | undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
        dispatcher: agent,
      });
      const body = await readBounded(res as unknown as Response);
      return new Response(res.status === 204 || res.status === 304 ? null : new Blob([new Uint8Array(body)]), {
        status: res.status,
        headers: res.headers as unknown as Headers,
      });
    } finally {
      void agent.close().catch(() => undefined);
    }
  };
}

/** The instance-wide provider's fetch: no address guard (the operator chose it), the same bounds in time. */
const boundedFetch: oidc.CustomFetch = (url, options) => fetch(url, { ...(options as RequestInit), signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });

export class Providers {
  private readonly cache = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  constructor(
    private readonly check: ReceiverCheck,
    private readonly now: () => number,
  ) {}

  /** The provider's configuration (discovery checks that its metadata names exactly this issuer). */
  async configuration(p: ProviderSettings): Promise<oidc.Configuration> {
    const key = sha256Hex(JSON.stringify([p.issuer, p.clientId, p.clientSecret, p.guarded]));
    const held = this.cache.get(key);
    if (held && this.now() - held.at < DISCOVERY_TTL_MS) return held.config;
    const config = this.discover(p);
    this.cache.set(key, { at: this.now(), config });
    // A failed discovery is not kept: the next sign-in asks again.
    config.catch(() => this.cache.delete(key));
    if (this.cache.size > 1_000) this.cache.delete(this.cache.keys().next().value as string);
    return config;
  }

  private async discover(p: ProviderSettings): Promise<oidc.Configuration> {
    const issuer = new URL(p.issuer);
    const execute = issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : [];
    try {
      return await oidc.discovery(issuer, p.clientId, p.clientSecret, undefined, {
        [oidc.customFetch]: p.guarded ? guardedFetch(this.check) : boundedFetch,
        execute,
        timeout: PROVIDER_TIMEOUT_MS / 1000,
      });
    } catch (e) {
      if (e instanceof DomainError) throw e;
      throw new DomainError("sso_failed", `The identity provider at ${issuer.origin} could not be reached or is not an OpenID provider`, undefined, {
        reason: "provider",
      });
    }
  }
}
