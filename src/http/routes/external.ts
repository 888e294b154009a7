// The external creation API (docs/api.md, External creation API): POST /api/external-create.php with a Bearer key.
// Order: key -> account active -> plan -> throttles and creation limit -> body -> create. The checks run in
// the route's onRequest hook, so a bad key with a bad body answers 401, not 400.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import type { AuthenticatedKey } from "../../accounts/api-keys.js";
import { CREATIONS_PER_WINDOW, RateLimitedError, type WindowHeaders } from "../../accounts/api-creation-window.js";
import { requireCapability } from "../../accounts/plans.js";
import { DomainError } from "../../shared/errors.js";
import { errors } from "../../contract/common.js";
import { ExternalCreateBody, ExternalCreateReply } from "../../contract/links.js";
import { ExportQuery } from "../../contract/imports.js";
import { Type } from "typebox";
import { sendExport } from "./imports.js";

export const EXTERNAL_CREATE_PATH = "/api/external-create.php";

/** Query parameters that look like a credential: the key belongs in the Authorization header only. */
const KEY_PARAM_RE = /^(?:key|api_key|apikey|api-key|token|access_token|bearer)$/i;
const BEARER_RE = /^Bearer +(\S+) *$/i;

/** Before a key is identified: the nominal quota (nothing is counted against an unknown caller). */
const UNIDENTIFIED: WindowHeaders = { limit: CREATIONS_PER_WINDOW, remaining: CREATIONS_PER_WINDOW, reset: 0 };

function setWindowHeaders(reply: FastifyReply, h: WindowHeaders): void {
  reply.header("RateLimit-Limit", String(h.limit));
  reply.header("RateLimit-Remaining", String(h.remaining));
  reply.header("RateLimit-Reset", String(h.reset));
}

/** A 429 of the creation window itself carries the window's state; other throttles (failures, bad keys) leave the
 * headers on the creation window as it is, and say when to come back in Retry-After only. */
function limitedUntil(reply: FastifyReply, err: unknown): void {
  if (err instanceof RateLimitedError) setWindowHeaders(reply, err.window);
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

/** Every link of the key's account (docs/external-api.md, Export). */
export const EXTERNAL_EXPORT_PATH = "/api/external-export";

export async function externalRoutes(app: App, ctx: AppContext): Promise<void> {
  const callers = new WeakMap<FastifyRequest, AuthenticatedKey>();

  /** The key and its account; a wrong key is refused (and counted against the address). */
  async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<AuthenticatedKey> {
    reply.header("Cache-Control", "no-store");
    if (keyInQuery(req.query)) {
      throw new DomainError("invalid_request", "Never put an API key in a URL: send it in the Authorization header (Authorization: Bearer <key>) and revoke a key that has been in a link");
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
    callers.set(req, caller);
    return caller;
  }

  /** The account active, its plan with the external API, the key not throttled for failures. */
  function allowed(caller: AuthenticatedKey, what: string): Promise<void> {
    if (caller.user.status !== "active") throw new DomainError("account_inactive", "The account of this API key is suspended");
    requireCapability(caller.user.plan, "external_api", what);
    return ctx.apiKeys.abuse.checkKey(caller.key.id);
  }

  /** Authentication, account, plan and limits: everything decided before the body is read. */
  async function admit(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    setWindowHeaders(reply, UNIDENTIFIED);
    const caller = await authenticate(req, reply);
    // From here on every answer describes this key's creation window as it is, whatever refuses the request.
    const window = await ctx.apiKeys.creations.peek(caller.key.id);
    setWindowHeaders(reply, window);
    await allowed(caller, "The external creation API");
    if (window.remaining === 0) throw new RateLimitedError(window, Math.max(1, window.reset));
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") throw new DomainError("invalid_request", "Send the body as JSON with Content-Type: application/json");
  }

  app.post(
    EXTERNAL_CREATE_PATH,
    {
      // The one state-changing /api route without CSRF: it is authenticated by the Bearer key, never by the session.
      config: { csrf: false },
      onRequest: admit,
      onSend: async (req, reply, payload) => {
        // Failures after authentication count towards the key's abuse throttle (429s do not: they cost nothing more).
        const caller = callers.get(req);
        if (caller && reply.statusCode >= 400 && reply.statusCode !== 429) {
          await ctx.apiKeys.abuse.recordKeyFailure(caller.key.id).catch((err: unknown) => req.log.warn({ err }, "could not record an API failure"));
        }
        return payload;
      },
      schema: {
        tags: ["external api"],
        summary: "Create a short link with an API key (Business and Enterprise)",
        description:
          "Authorization: Bearer <API key>, kept on your server. At most 100 creations per key in any hour (sliding window). " +
          "Every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds until a slot frees); a 429 also Retry-After.",
        security: [{ bearer: [] }],
        body: ExternalCreateBody,
        response: { 201: ExternalCreateReply, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const caller = callers.get(req);
      if (!caller) throw new DomainError("invalid_api_key", "Send the API key as Authorization: Bearer <key>");
      let reservation;
      try {
        reservation = await ctx.apiKeys.creations.reserve(caller.key.id);
      } catch (err) {
        limitedUntil(reply, err);
        throw err;
      }
      setWindowHeaders(reply, reservation);
      try {
        const pub = await ctx.links.presentOne(await ctx.links.create(caller.user, req.body, { via: "api" }));
        return reply.code(201).send({ status: "success" as const, short_url: pub.short_url, link: pub });
      } catch (err) {
        // A failed creation does not use up the quota.
        setWindowHeaders(reply, await ctx.apiKeys.creations.release(reservation).catch(() => reservation));
        throw err;
      }
    },
  );

  app.get(
    EXTERNAL_EXPORT_PATH,
    {
      onRequest: async (req, reply) => allowed(await authenticate(req, reply), "The external API"),
      schema: {
        tags: ["external api"],
        summary: "Every link of the key's account, as CSV or JSON (GET /api/links/export with an API key: backups from a script)",
        security: [{ bearer: [] }],
        querystring: Type.Object({ format: ExportQuery.properties.format }),
        response: errors(400, 401, 403, 429),
      },
    },
    async (req, reply) => {
      const caller = callers.get(req);
      if (!caller) throw new DomainError("invalid_api_key", "Send the API key as Authorization: Bearer <key>");
      const format = req.query.format ?? "csv";
      return sendExport(reply, ctx, caller.user.id, format);
    },
  );
}
