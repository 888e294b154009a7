// SCIM 2.0 (RFC 7644; docs/scim.md) under /scim/v2: the identity provider's side of provisioning, authenticated by
// the connection's bearer token (no session, no cookie, no CSRF). Bodies are application/scim+json (or JSON), at
// most SCIM_BODY_LIMIT; every answer, errors included, is SCIM's own (urn:ietf:params:scim:api:messages:2.0:Error).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { ScimAnswer, ScimBody, ScimIdParams, ScimListQuery, ScimReadQuery } from "../../contract/scim.js";
import { STATUS_BY_CODE, toDomainError } from "../errors.js";
import { SECURITY_HEADERS } from "../security-headers.js";
import { ERROR_SCHEMA, ScimError } from "../../sso/scim/errors.js";
import { SCIM_PATH, type ScimConnection } from "../../sso/scim/tokens.js";
import { userFromBody } from "../../sso/scim/user-attributes.js";
import { patchOps } from "../../sso/scim/patch.js";
import { applyGroupPatch, groupFromBody } from "../../sso/scim/groups.js";
import { paging } from "../../sso/scim/resources.js";
import { resourceTypes, schemas, serviceProviderConfig } from "../../sso/scim/discovery.js";

type Deps = Pick<AppContext, "sso" | "config" | "apiKeys">;

/** The largest SCIM request body: a group push of a thousand members fits several times over. */
export const SCIM_BODY_LIMIT = 256 * 1024;
const SCIM_TYPE = "application/scim+json; charset=utf-8";

declare module "fastify" {
  interface FastifyRequest {
    scimConnection: ScimConnection | null;
  }
}

function connectionOf(req: FastifyRequest): ScimConnection {
  if (!req.scimConnection) throw new ScimError(401, null, "Send the connection's SCIM token as Authorization: Bearer <token>");
  return req.scimConnection;
}

export function sendScimError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  let status: number;
  let scimType: string | null = null;
  let detail: string;
  if (err instanceof ScimError) {
    status = err.status;
    scimType = err.scimType;
    detail = err.message;
  } else {
    const de = toDomainError(err);
    status = STATUS_BY_CODE[de.code];
    detail = de.message;
    if (status >= 500) req.log.error({ err }, "SCIM request failed");
    if (status === 400) scimType = "invalidSyntax";
    if (de.retryAfter !== undefined) reply.header("Retry-After", String(de.retryAfter));
  }
  const body = { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType === null ? {} : { scimType }), detail };
  if (status === 401) reply.header("WWW-Authenticate", 'Bearer realm="snip SCIM"');
  // Also what the app's onSend hook adds: an address refused before routing (frameworkErrors) skips the hooks.
  return reply.code(status).headers(SECURITY_HEADERS).header("cache-control", "no-store").type(SCIM_TYPE).send(JSON.stringify(body));
}

const withMembers = (q: { attributes?: string; excludedAttributes?: string }) =>
  !(q.excludedAttributes ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim())
    .includes("members") &&
  (q.attributes === undefined ||
    q.attributes
      .toLowerCase()
      .split(",")
      .map((s) => s.trim())
      .includes("members"));

export async function scimRoutes(app: App, ctx: Deps): Promise<void> {
  const { scim } = ctx.sso;
  const origin = ctx.config.origin;
  await app.register(
    async (s) => {
      const scope = s as unknown as App;
      scope.decorateRequest("scimConnection", null);
      scope.addContentTypeParser("application/scim+json", { parseAs: "string", bodyLimit: SCIM_BODY_LIMIT }, (_req, body, done) => {
        try {
          done(null, JSON.parse(body as string));
        } catch {
          done(new ScimError(400, "invalidSyntax", "The body is not valid JSON"), undefined);
        }
      });
      // The token first, before the body is read: a caller without it sends nothing further.
      // A wrong token counts toward the address's limit (as invalid API keys do): guessing is 429 after 60 in 10 minutes.
      scope.addHook("onRequest", async (req) => {
        try {
          req.scimConnection = await scim.tokens.authenticate(req.headers.authorization);
        } catch (err) {
          if (err instanceof ScimError && err.status === 401) await ctx.apiKeys.abuse.badScimToken(req.ip);
          throw err;
        }
      });
      scope.addHook("onSend", async (_req, reply, payload) => {
        const type = reply.getHeader("content-type");
        if (typeof type === "string" && type.startsWith("application/json")) reply.type(SCIM_TYPE);
        reply.header("cache-control", "no-store");
        return payload;
      });
      scope.setErrorHandler((err, req, reply) => sendScimError(req, reply, err));
      scope.setNotFoundHandler((req, reply) => sendScimError(req, reply, new ScimError(404, null, "No such SCIM endpoint")));

      scope.get("/ServiceProviderConfig", { schema: { tags, summary: "SCIM: what this service provider supports (bearer token)", response: read } }, async () =>
        serviceProviderConfig(origin),
      );
      scope.get("/ResourceTypes", { schema: { tags, summary: "SCIM: the resource types, User and Group", response: read } }, async () => resourceTypes(origin));
      scope.get("/Schemas", { schema: { tags, summary: "SCIM: the User and Group schemas as kept", response: read } }, async () => schemas(origin));

      scope.get(
        "/Users",
        {
          schema: {
            tags,
            summary: 'SCIM: the connection\'s users; filter userName, externalId, id or emails eq "..."; startIndex, count',
            querystring: ScimListQuery,
            response: read,
          },
        },
        async (req) => {
          const p = paging(req.query);
          return scim.users.list(connectionOf(req), req.query.filter, p.startIndex, p.count);
        },
      );
      scope.post(
        "/Users",
        {
          config: cfg,
          schema: {
            tags,
            summary: "SCIM: provision a user (joins the team as member; 409 uniqueness for a taken userName)",
            body: ScimBody,
            response: { 201: ScimAnswer },
          },
        },
        async (req, reply) => {
          const created = await scim.users.create(connectionOf(req), userFromBody(req.body));
          reply.header("location", (created.meta as { location: string }).location);
          return reply.code(201).send(created);
        },
      );
      scope.get("/Users/:id", { schema: { tags, summary: "SCIM: one user", params: ScimIdParams, querystring: ScimReadQuery, response: read } }, async (req) =>
        scim.users.get(connectionOf(req), req.params.id),
      );
      scope.put(
        "/Users/:id",
        { config: cfg, schema: { tags, summary: "SCIM: replace a user (active false deprovisions)", params: ScimIdParams, body: ScimBody, response: read } },
        async (req) => scim.users.replace(connectionOf(req), req.params.id, userFromBody(req.body)),
      );
      scope.patch(
        "/Users/:id",
        {
          config: cfg,
          schema: {
            tags,
            summary: "SCIM: PatchOp on a user (Okta's and Entra ID's shapes; active false deprovisions)",
            params: ScimIdParams,
            body: ScimBody,
            response: read,
          },
        },
        async (req) => scim.users.patch(connectionOf(req), req.params.id, patchOps(req.body)),
      );
      scope.delete(
        "/Users/:id",
        { config: { csrf: false }, schema: { tags, summary: "SCIM: delete a user (leaves the team; sessions and keys end)", params: ScimIdParams } },
        async (req, reply) => {
          await scim.users.remove(connectionOf(req), req.params.id);
          return reply.code(204).send();
        },
      );

      groupRoutes(scope, scim);
    },
    { prefix: SCIM_PATH },
  );
}

const tags = ["scim"];
const read = { 200: ScimAnswer };
const cfg = { csrf: false, bodyLimit: SCIM_BODY_LIMIT };

function groupRoutes(scope: App, scim: Deps["sso"]["scim"]): void {
  scope.get(
    "/Groups",
    {
      schema: {
        tags,
        summary: 'SCIM: the connection\'s groups; filter displayName, externalId or id eq "..."',
        querystring: ScimListQuery,
        response: read,
      },
    },
    async (req) => {
      const p = paging(req.query);
      return scim.groups.list(connectionOf(req), req.query.filter, p.startIndex, p.count, withMembers(req.query));
    },
  );
  scope.post(
    "/Groups",
    {
      config: cfg,
      schema: { tags, summary: "SCIM: create a group (admin, member, viewer give that role)", body: ScimBody, response: { 201: ScimAnswer } },
    },
    async (req, reply) => {
      const created = await scim.groups.create(connectionOf(req), groupFromBody(req.body));
      reply.header("location", (created.meta as { location: string }).location);
      return reply.code(201).send(created);
    },
  );
  scope.get(
    "/Groups/:id",
    { schema: { tags, summary: "SCIM: one group with its members", params: ScimIdParams, querystring: ScimReadQuery, response: read } },
    async (req) => scim.groups.get(connectionOf(req), req.params.id, withMembers(req.query)),
  );
  scope.put(
    "/Groups/:id",
    { config: cfg, schema: { tags, summary: "SCIM: replace a group and its members", params: ScimIdParams, body: ScimBody, response: read } },
    async (req) => {
      const next = groupFromBody(req.body);
      return scim.groups.update(connectionOf(req), req.params.id, () => next);
    },
  );
  scope.patch(
    "/Groups/:id",
    {
      config: cfg,
      schema: { tags, summary: "SCIM: PatchOp on a group (members add/remove, displayName)", params: ScimIdParams, body: ScimBody, response: read },
    },
    async (req) => {
      const ops = patchOps(req.body);
      return scim.groups.update(connectionOf(req), req.params.id, (before) => applyGroupPatch(before, ops));
    },
  );
  scope.delete(
    "/Groups/:id",
    { config: { csrf: false }, schema: { tags, summary: "SCIM: delete a group (its members' roles follow)", params: ScimIdParams } },
    async (req, reply) => {
      await scim.groups.remove(connectionOf(req), req.params.id);
      return reply.code(204).send();
    },
  );
}
