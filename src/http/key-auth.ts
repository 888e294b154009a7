// API-key authentication for the routes that take a key (contract/api-keys.ts, KEY_ROUTE_SCOPES): the key, its
// scope for the route, its account and plan. Every other /api route refuses a key (401 unauthenticated): a key
// never authenticates a dashboard operation (docs/api.md, Sessions and CSRF).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.js";
import type { AuthenticatedKey } from "../accounts/api-keys.js";
import { scopesOf } from "../accounts/key-scopes.js";
import { requireCapability } from "../accounts/plans.js";
import { DomainError } from "../shared/errors.js";
import { KEY_ROUTE_SCOPES, type ApiKeyScope, type KeyRoute } from "../contract/api-keys.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scopes of which any one admits an API key (keyRoute()); absent: the route refuses keys. */
    keyScopes?: readonly ApiKeyScope[];
  }
  interface FastifyRequest {
    /** Set by authenticateKey on a key route. */
    keyCaller: AuthenticatedKey | null;
  }
}

/** What admitting an API key takes: the keys, and their throttles on failures. */
export type KeyDeps = Pick<AppContext, "apiKeys">;
/** Query parameters that look like a credential: the key belongs in the Authorization header only. */
const KEY_PARAM_RE = /^(?:key|api_key|apikey|api-key|token|access_token|bearer)$/i;
const BEARER_RE = /^Bearer +(\S+) *$/i;
/** An Authorization header carrying what looks like a snip key (other Bearer tokens, such as METRICS_TOKEN, are not keys). */
const KEY_HEADER_RE = /^\s*Bearer\s+snip_/i;

/** The config of a key route: its scopes from the contract, and no CSRF token (a key is no session). */
export function keyRoute(route: KeyRoute): { csrf: false; keyScopes: readonly ApiKeyScope[] } {
  return { csrf: false, keyScopes: KEY_ROUTE_SCOPES[route] };
}

/** The refusal of a key on a route that takes none. */
export const KEY_NOT_TAKEN =
  "This route does not take API keys: it needs a signed-in session, without an Authorization key (the key routes are in docs/external-api.md)";

/**
 * Refuses a key on every /api route that does not declare scopes: 401 unauthenticated, as a key alone always
 * had there. It runs before the body is read but after the session's own checks (CSRF, the operator and
 * import scopes' admission), so those answer as before and a signed-in session with a key is refused too.
 */
export function installKeyRefusal(app: FastifyInstance): void {
  app.decorateRequest("keyCaller", null);
  app.addHook("preParsing", async (req) => {
    if (req.routeOptions.config.keyScopes || !req.url.startsWith("/api/")) return;
    const header = req.headers.authorization;
    if (header !== undefined && KEY_HEADER_RE.test(header)) throw new DomainError("unauthenticated", KEY_NOT_TAKEN);
  });
}

function keyInQuery(query: unknown): boolean {
  if (!query || typeof query !== "object") return false;
  return Object.entries(query as Record<string, unknown>).some(
    ([name, value]) => KEY_PARAM_RE.test(name) || [value].flat().some((v) => typeof v === "string" && v.trim().startsWith("snip_")),
  );
}

function bearerSecret(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (header === undefined || header === "") return null;
  const m = BEARER_RE.exec(header);
  if (!m?.[1]) throw new DomainError("invalid_api_key", "The Authorization header must be: Bearer <key>");
  return m[1];
}

/** 403 insufficient_scope unless the key holds one of the route's scopes (the message names them). */
export function requireScope(req: FastifyRequest, caller: AuthenticatedKey): void {
  const needed = req.routeOptions.config.keyScopes;
  const held = scopesOf(caller.key);
  if (needed && needed.some((s) => held.includes(s))) return;
  const names = needed?.join(" or ") ?? "(none: this route takes no key)";
  throw new DomainError("insufficient_scope", `This API key lacks the scope ${names}; create a key with it on the Security page`, undefined, {
    required_scopes: needed ?? [],
  });
}

/** The key and its account; a wrong key is refused (and counted against the address). Sets req.keyCaller. */
export async function authenticateKey(ctx: KeyDeps, req: FastifyRequest, reply: FastifyReply): Promise<AuthenticatedKey> {
  reply.header("Cache-Control", "no-store");
  if (keyInQuery(req.query)) {
    throw new DomainError(
      "invalid_request",
      "Never put an API key in a URL: send it in the Authorization header (Authorization: Bearer <key>) and revoke a key that has been in a link",
    );
  }
  let caller: AuthenticatedKey;
  try {
    caller = await ctx.apiKeys.authenticate(bearerSecret(req));
  } catch (err) {
    if (!(err instanceof DomainError && err.code === "invalid_api_key")) throw err;
    await ctx.apiKeys.abuse.checkAddress(req.ip);
    await ctx.apiKeys.abuse.recordBadKey(req.ip);
    reply.header("WWW-Authenticate", 'Bearer realm="snip", error="invalid_token"');
    throw err;
  }
  req.keyCaller = caller;
  return caller;
}

/** The account active, its plan with the external API (a key never grants what the plan does not), the key not throttled for failures. */
export function keyAllowed(ctx: KeyDeps, caller: AuthenticatedKey, what: string): Promise<void> {
  if (caller.user.status !== "active") throw new DomainError("account_inactive", "The account of this API key is suspended");
  requireCapability(caller.user.plan, "external_api", what);
  return ctx.apiKeys.abuse.checkKey(caller.key.id);
}

/** An onRequest hook for a key route: key, scope, account, plan. */
export function admitKey(ctx: KeyDeps, what: string): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (req, reply) => {
    const caller = await authenticateKey(ctx, req, reply);
    requireScope(req, caller);
    await keyAllowed(ctx, caller, what);
  };
}

/** The key's caller, admitted by the route's hook. */
export function keyCaller(req: FastifyRequest): AuthenticatedKey {
  if (!req.keyCaller) throw new DomainError("invalid_api_key", "Send the API key as Authorization: Bearer <key>");
  return req.keyCaller;
}
