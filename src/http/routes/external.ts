// The external creation API (docs/api.md, External creation API): POST /api/external-create.php with a Bearer key.
// Order: key -> scope -> account active -> plan -> throttles and creation limit -> body -> create. The checks run in
// the route's onRequest hook, so a bad key with a bad body answers 401, not 400.
import type { FastifyReply, FastifyRequest } from "fastify";
import { admitKey, authenticateKey, keyAllowed, keyCaller, keyRoute, requireScope } from "../key-auth.js";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { CREATIONS_PER_WINDOW, RateLimitedError, type WindowHeaders } from "../../accounts/api-creation-window.js";
import { DomainError } from "../../shared/errors.js";
import { errors } from "../../contract/common.js";
import { ExternalCreateBody, ExternalCreateReply } from "../../contract/links.js";
import { ExportQuery } from "../../contract/imports.js";
import { Type } from "typebox";
import { sendExport } from "./imports.js";
import { keyFolders } from "../../accounts/key-scopes.js";
import { keyFolderInput } from "../../links/key-folders.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "clock" | "config" | "links" | "storage">;

export const EXTERNAL_CREATE_PATH = "/api/external-create.php";

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

/** Every link of the key's account (docs/external-api.md, Export). */
export const EXTERNAL_EXPORT_PATH = "/api/external-export";

export async function externalRoutes(app: App, ctx: Deps): Promise<void> {
  /** Authentication, account, plan and limits: everything decided before the body is read. */
  async function admit(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    setWindowHeaders(reply, UNIDENTIFIED);
    const caller = await authenticateKey(ctx, req, reply);
    // From here on every answer describes this key's creation window as it is, whatever refuses the request.
    const window = await ctx.apiKeys.creations.peek(caller.key.id);
    setWindowHeaders(reply, window);
    requireScope(req, caller);
    await keyAllowed(ctx, caller, "The external creation API");
    if (window.remaining === 0) throw new RateLimitedError(window, Math.max(1, window.reset));
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") throw new DomainError("invalid_request", "Send the body as JSON with Content-Type: application/json");
  }

  app.post(
    EXTERNAL_CREATE_PATH,
    {
      // Without CSRF, as every key route: it is authenticated by the Bearer key, never by the session.
      config: keyRoute(`POST ${EXTERNAL_CREATE_PATH}`),
      onRequest: admit,
      onSend: async (req, reply, payload) => {
        // Failures after authentication count towards the key's abuse throttle (429s do not: they cost nothing more).
        const caller = req.keyCaller;
        if (caller && reply.statusCode >= 400 && reply.statusCode !== 429) {
          await ctx.apiKeys.abuse.recordKeyFailure(caller.key.id).catch((err: unknown) => req.log.warn({ err }, "could not record an API failure"));
        }
        return payload;
      },
      schema: {
        tags: ["external api"],
        summary: "Create a short link with an API key (Business and Enterprise; scope links:create or links:write)",
        description:
          "Authorization: Bearer <API key>, kept on your server. At most 100 creations per key in any hour (sliding window). " +
          "Every answer carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds until a slot frees); a 429 also Retry-After.",
        security: [{ bearer: [] }],
        body: ExternalCreateBody,
        response: { 201: ExternalCreateReply, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const caller = keyCaller(req);
      let reservation;
      try {
        reservation = await ctx.apiKeys.creations.reserve(caller.key.id);
      } catch (err) {
        limitedUntil(reply, err);
        throw err;
      }
      setWindowHeaders(reply, reservation);
      try {
        const folder_id = keyFolderInput(keyFolders(caller.key), req.body.folder_id, true);
        const body = folder_id === undefined ? req.body : { ...req.body, folder_id };
        const pub = await ctx.links.presentOne(await ctx.links.create(caller.user, body, { via: "api" }));
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
      config: keyRoute(`GET ${EXTERNAL_EXPORT_PATH}`),
      onRequest: admitKey(ctx, "The external API"),
      schema: {
        tags: ["external api"],
        summary: "Every link of the key's account, as CSV or JSON (GET /api/links/export with an API key: backups from a script; scope export)",
        security: [{ bearer: [] }],
        querystring: Type.Object({ format: ExportQuery.properties.format }),
        response: errors(400, 401, 403, 429),
      },
    },
    async (req, reply) => {
      const caller = keyCaller(req);
      const format = req.query.format ?? "csv";
      return sendExport(reply, ctx, caller.user.id, format, { folderIn: keyFolders(caller.key) });
    },
  );
}
