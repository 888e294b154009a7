// Links and their statistics through an API key (docs/external-api.md, Links): the dashboard's reads and edits
// for a script, each behind its scope (contract/api-keys.ts, KEY_ROUTE_SCOPES), the key's account and its plan.
// The key acts as its account: the same services and access rules as the dashboard's routes.
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { LinkListQuery, LinkPageReply, LinkReply, UpdateLinkBody } from "../../contract/links.js";
import { RangeQuery, StatsReply } from "../../contract/stats.js";
import { admitKey, keyCaller, keyRoute } from "../key-auth.js";
import { linkStatsReply } from "./stats.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "links" | "splits" | "stats" | "storage">;

export const EXTERNAL_LINKS_PATH = "/api/external/links";

/** The list's filters without `owner`: a key reads its own account's links. */
const ExternalListQuery = Type.Omit(LinkListQuery, ["owner"], { additionalProperties: false });
const tags = ["external api"];
const security = [{ bearer: [] }];

export async function externalLinkRoutes(app: App, ctx: Deps): Promise<void> {
  const admit = admitKey(ctx, "The external API");

  app.get(
    EXTERNAL_LINKS_PATH,
    {
      config: keyRoute("GET /api/external/links"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "The key's account's links, as GET /api/links (scope links:read)",
        querystring: ExternalListQuery,
        response: { 200: LinkPageReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const page = await ctx.links.list(keyCaller(req).user, req.query);
      return { ...page, status: "success" as const, links: await ctx.links.present(page.links) };
    },
  );

  app.get(
    `${EXTERNAL_LINKS_PATH}/:id`,
    {
      config: keyRoute("GET /api/external/links/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "A link of the key's account (scope links:read)",
        params: IdParams,
        response: { 200: LinkReply, ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => ({ status: "success" as const, link: await ctx.links.presentOne(await ctx.links.get(keyCaller(req).user, req.params.id)) }),
  );

  app.patch(
    `${EXTERNAL_LINKS_PATH}/:id`,
    {
      config: keyRoute("PATCH /api/external/links/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Edit a link, as PATCH /api/links/{id}; plan-gated options follow the account's plan (scope links:write)",
        params: IdParams,
        body: UpdateLinkBody,
        response: { 200: LinkReply, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => ({ status: "success" as const, link: await ctx.links.presentOne(await ctx.links.update(keyCaller(req).user, req.params.id, req.body)) }),
  );

  app.delete(
    `${EXTERNAL_LINKS_PATH}/:id`,
    {
      config: keyRoute("DELETE /api/external/links/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Delete a link of the key's account (scope links:write)",
        params: IdParams,
        response: { 200: OkSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => {
      await ctx.links.delete(keyCaller(req).user, req.params.id);
      return { status: "success" as const };
    },
  );

  app.get(
    `${EXTERNAL_LINKS_PATH}/:id/stats`,
    {
      config: keyRoute("GET /api/external/links/:id/stats"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Statistics of a link, as GET /api/links/{id}/stats (scope stats:read)",
        params: IdParams,
        querystring: RangeQuery,
        response: { 200: StatsReply, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (req) => {
      const { link, owner } = await ctx.links.access(keyCaller(req).user, req.params.id);
      return linkStatsReply(ctx, link, owner, req.query);
    },
  );
}
