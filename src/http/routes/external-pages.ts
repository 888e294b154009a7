// Shared statistics and bio pages through an API key (docs/external-api.md, Shares and bio pages): the dashboard's
// routes for a script, each behind its scope (contract/api-keys.ts, KEY_ROUTE_SCOPES), the key's account and its plan.
// The key acts as its account with the same services and plan rules (shares Business and up, bio pages Pro and up;
// every key route needs Business already); a key limited to folders shares only those folders and links in them, and
// sees only the bio pages whose buttons open links in them (links/key-folders.ts).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { CreateShareBody, KeyShareListQuery, ShareListReply, ShareReply } from "../../contract/shares.js";
import { BioPageListReply, BioPageReply, CreateBioPageBody, UpdateBioPageBody } from "../../contract/bio-pages.js";
import { admitKey, keyCaller, keyRoute } from "../key-auth.js";
import { keyFolders } from "../../accounts/key-scopes.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "apiKeys" | "shares" | "bioPages">;

export const EXTERNAL_SHARES_PATH = "/api/external/shares";
export const EXTERNAL_BIO_PAGES_PATH = "/api/external/bio-pages";

const tags = ["external api"];
const security = [{ bearer: [] }];

export async function externalShareRoutes(app: App, ctx: Deps): Promise<void> {
  const admit = admitKey(ctx, "The external API");

  app.get(
    EXTERNAL_SHARES_PATH,
    {
      config: keyRoute("GET /api/external/shares"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "The key's account's shared statistics pages, newest first, as GET /api/shares; link_id: only that link's (scope shares:read)",
        querystring: KeyShareListQuery,
        response: { 200: ShareListReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      return { status: "success" as const, shares: await ctx.shares.list(user, undefined, req.query.link_id, keyFolders(key)) };
    },
  );

  app.post(
    EXTERNAL_SHARES_PATH,
    {
      config: keyRoute("POST /api/external/shares"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Publish a link's, a tag's or a folder's statistics at an unguessable address, as POST /api/shares; Business and up (scope shares:write)",
        body: CreateShareBody,
        response: { 201: ShareReply, ...errors(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      const { user, key } = keyCaller(req);
      const share = await ctx.shares.create(user, req.body, undefined, keyFolders(key));
      return reply.code(201).send({ status: "success" as const, id: share.id, url: share.url, share });
    },
  );

  app.delete(
    `${EXTERNAL_SHARES_PATH}/:id`,
    {
      config: keyRoute("DELETE /api/external/shares/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Stop sharing, as DELETE /api/shares/{id}: the page answers 404 from the next request on (scope shares:write)",
        params: IdParams,
        response: { 200: OkSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      await ctx.shares.delete(user, req.params.id, keyFolders(key));
      return { status: "success" as const };
    },
  );
}

export async function externalBioPageRoutes(app: App, ctx: Deps): Promise<void> {
  const admit = admitKey(ctx, "The external API");

  app.get(
    EXTERNAL_BIO_PAGES_PATH,
    {
      config: keyRoute("GET /api/external/bio-pages"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "The key's account's bio pages, newest first, each with its views and its buttons' clicks (scope bio_pages:read)",
        response: { 200: BioPageListReply, ...errors(401, 403, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      return { status: "success" as const, pages: await ctx.bioPages.list(user, keyFolders(key)) };
    },
  );

  app.get(
    `${EXTERNAL_BIO_PAGES_PATH}/:id`,
    {
      config: keyRoute("GET /api/external/bio-pages/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "A bio page of the key's account with its statistics, as GET /api/bio-pages/{id} (scope bio_pages:read)",
        params: IdParams,
        response: { 200: BioPageReply, ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      return { status: "success" as const, page: await ctx.bioPages.get(user, req.params.id, keyFolders(key)) };
    },
  );

  app.post(
    EXTERNAL_BIO_PAGES_PATH,
    {
      config: keyRoute("POST /api/external/bio-pages"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Publish a bio page at /{slug}, as POST /api/bio-pages; a slug that is an alias there: 409 alias_taken (scope bio_pages:write)",
        body: CreateBioPageBody,
        response: { 201: BioPageReply, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      const { user, key } = keyCaller(req);
      return reply.code(201).send({ status: "success" as const, page: await ctx.bioPages.create(user, req.body, keyFolders(key)) });
    },
  );

  app.patch(
    `${EXTERNAL_BIO_PAGES_PATH}/:id`,
    {
      config: keyRoute("PATCH /api/external/bio-pages/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Edit a bio page (the fields given), as PATCH /api/bio-pages/{id} (scope bio_pages:write)",
        params: IdParams,
        body: UpdateBioPageBody,
        response: { 200: BioPageReply, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      return { status: "success" as const, page: await ctx.bioPages.update(user, req.params.id, req.body, keyFolders(key)) };
    },
  );

  app.delete(
    `${EXTERNAL_BIO_PAGES_PATH}/:id`,
    {
      config: keyRoute("DELETE /api/external/bio-pages/:id"),
      onRequest: admit,
      schema: {
        tags,
        security,
        summary: "Delete a bio page, as DELETE /api/bio-pages/{id}: its address answers 404 from the next request on (scope bio_pages:write)",
        params: IdParams,
        response: { 200: OkSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => {
      const { user, key } = keyCaller(req);
      await ctx.bioPages.delete(user, req.params.id, keyFolders(key));
      return { status: "success" as const };
    },
  );
}
