// Dashboard link routes (API.md, Links): create (signed in or out), list, read, edit, delete, bulk.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { MAX_PAGE } from "../../links/list-links.js";
import { Body, OkSchema, errors } from "../schemas.js";
import { CreateLinkBody, LinkReply, LinkSchema, UpdateLinkBody } from "../link-schemas.js";
import { currentUser, requireActiveUser, requireUser } from "../auth.js";

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const BulkResultSchema = Type.Union([
  Type.Object({ line: Type.Integer(), url: Type.String(), status: Type.Literal("created"), link: LinkSchema }),
  Type.Object({ line: Type.Integer(), url: Type.String(), status: Type.Literal("error"), code: Type.String(), message: Type.String() }),
]);

export async function linkRoutes(app: App, ctx: AppContext): Promise<void> {
  app.post(
    "/api/links",
    {
      schema: {
        tags: ["links"],
        summary: "Create a link; signed out: url and alias only, and the link expires after 5 minutes",
        body: CreateLinkBody,
        response: { 201: LinkReply, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const link = await ctx.links.create(await currentUser(ctx, req), req.body, { via: "dashboard", ip: req.ip });
      return reply.code(201).send({ status: "success" as const, link: ctx.links.toPublic(link) });
    },
  );

  app.get(
    "/api/links",
    {
      schema: {
        tags: ["links"],
        summary: "The caller's links, newest first; q searches alias and destination; owner lists a team owner's links (active members)",
        querystring: Type.Object(
          {
            owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's links, for an active member (404 otherwise)" })),
            q: Type.Optional(Type.String({ maxLength: 500 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ status: Type.Literal("success"), links: Type.Array(LinkSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (req, reply) => {
      const page = await ctx.links.list(await requireUser(ctx, req), req.query);
      reply.header("cache-control", "no-store");
      const links = await ctx.links.withCurrentCounts(page.links);
      return { status: "success" as const, links: links.map((l) => ctx.links.toPublic(l)), next_cursor: page.next_cursor };
    },
  );

  app.post(
    "/api/links/bulk",
    {
      schema: {
        tags: ["links"],
        summary: "Create one link per line (Business and above); one result per non-empty line, in order",
        body: Body({ urls: Type.String({ maxLength: 1024 * 1024 }) }),
        response: { 200: Type.Object({ status: Type.Literal("success"), results: Type.Array(BulkResultSchema) }), ...errors(400, 401, 403, 413) },
      },
    },
    async (req) => {
      const results = await ctx.links.bulk(await requireActiveUser(ctx, req), req.body.urls);
      return {
        status: "success" as const,
        results: results.map((r) => (r.status === "created" ? { ...r, link: ctx.links.toPublic(r.link) } : r)),
      };
    },
  );

  app.get(
    "/api/links/:id",
    { schema: { tags: ["links"], summary: "A link of the caller's, or of a team owner's for an active member", params: IdParams, response: { 200: LinkReply, ...errors(401, 404) } } },
    async (req, reply) => {
      const [link] = await ctx.links.withCurrentCounts([await ctx.links.get(await requireUser(ctx, req), req.params.id)]);
      reply.header("cache-control", "no-store");
      return { status: "success" as const, link: ctx.links.toPublic(link!) };
    },
  );

  app.patch(
    "/api/links/:id",
    {
      schema: {
        tags: ["links"],
        summary: "Edit a link (owner or active team member); null clears an option; plan-gated options follow the owner's plan",
        params: IdParams,
        body: UpdateLinkBody,
        response: { 200: LinkReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const [link] = await ctx.links.withCurrentCounts([await ctx.links.update(await requireActiveUser(ctx, req), req.params.id, req.body)]);
      return { status: "success" as const, link: ctx.links.toPublic(link!) };
    },
  );

  app.delete(
    "/api/links/:id",
    { schema: { tags: ["links"], summary: "Delete a link (owner only: members get 403 forbidden); its short address answers 404 at once", params: IdParams, response: { 200: OkSchema, ...errors(401, 403, 404) } } },
    async (req) => {
      await ctx.links.delete(await requireActiveUser(ctx, req), req.params.id);
      return { status: "success" as const };
    },
  );
}
