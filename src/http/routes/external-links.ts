// Links and their statistics through an API key (docs/external-api.md, Links): the dashboard's reads and edits
// for a script, each behind its scope (contract/api-keys.ts, KEY_ROUTE_SCOPES), the key's account and its plan.
// The key acts as its account: the same services and access rules as the dashboard's routes; a key limited to
// folders sees and changes only the links in them (links/key-folders.ts).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AuthenticatedKey } from "../../accounts/api-keys.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { LinkListQuery, LinkPageReply, LinkReply, UpdateLinkBody } from "../../contract/links.js";
import { RangeQuery, StatsReply } from "../../contract/stats.js";
import { LinkHealthReply } from "../../contract/health.js";
import { admitKey, keyCaller, keyRoute } from "../key-auth.js";
import { linkStatsReply } from "./stats.js";
import { keyFolders } from "../../accounts/key-scopes.js";
import { keyFolderInput, requireKeyFolder } from "../../links/key-folders.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "links" | "linkHealth" | "splits" | "stats" | "storage">;

export const EXTERNAL_LINKS_PATH = "/api/external/links";

/** The list's filters without `owner`: a key reads its own account's links. */
const ExternalListQuery = Type.Omit(LinkListQuery, ["owner"], { additionalProperties: false });
const tags = ["external api"];
const security = [{ bearer: [] }];

export async function externalLinkRoutes(app: App, ctx: Deps): Promise<void> {
  const admit = admitKey(ctx, "The external API");
  /** The link, when the key may see it (its account's, in the key's folders if it has any). */
  const keyLink = async (id: string, caller: AuthenticatedKey) => {
    const link = await ctx.links.get(caller.user, id);
    requireKeyFolder(keyFolders(caller.key), link);
    return link;
  };

  app.get(
    EXTERNAL_LINKS_PATH,
    {
      config: keyRoute("GET /api/external/links"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "The key's account's links, as GET /api/links, with its filters (health among them) (scope links:read)",
        querystring: ExternalListQuery,
        response: { 200: LinkPageReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      const page = await ctx.links.list(user, { ...req.query, folder_in: keyFolders(key) ?? undefined });
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
    async (req) => ({ status: "success" as const, link: await ctx.links.presentOne(await keyLink(req.params.id, keyCaller(req))) }),
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
    async (req) => {
      const caller = keyCaller(req);
      await keyLink(req.params.id, caller);
      const folder_id = keyFolderInput(keyFolders(caller.key), req.body.folder_id, false);
      const body = folder_id === undefined ? req.body : { ...req.body, folder_id };
      return { status: "success" as const, link: await ctx.links.presentOne(await ctx.links.update(caller.user, req.params.id, body)) };
    },
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
      const caller = keyCaller(req);
      await keyLink(req.params.id, caller);
      await ctx.links.delete(caller.user, req.params.id);
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
      requireKeyFolder(keyFolders(keyCaller(req).key), link);
      return linkStatsReply(ctx, link, owner, req.query);
    },
  );

  app.get(
    `${EXTERNAL_LINKS_PATH}/:id/health`,
    {
      config: keyRoute("GET /api/external/links/:id/health"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "A link's destinations with their state and last checks, as GET /api/links/{id}/health (scope links:read)",
        params: IdParams,
        response: { 200: LinkHealthReply, ...errors(401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const link = await keyLink(req.params.id, keyCaller(req));
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...(await ctx.linkHealth.report(link.id)) };
    },
  );
}
