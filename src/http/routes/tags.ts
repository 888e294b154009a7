// An owner's tags from the dashboard (docs/api.md, Tags): list, create, rename or recolour, delete.
// Session + CSRF; `owner` lets an active team member list and create the owner's tags.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, OkSchema, errors } from "../../contract/common.js";
import { CreateTagBody, TagListReply, TagOwnerQuery, TagReply, UpdateTagBody } from "../../contract/tags.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "tags">;

export async function tagRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/tags",
      {
        schema: {
          tags: ["tags"],
          summary: "The caller's tags (or a team owner's) in name order, with their link counts",
          querystring: TagOwnerQuery,
          response: { 200: TagListReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, tags: await ctx.tags.list(signedIn(req), req.query.owner) };
      },
    );

    scope.post(
      "/api/tags",
      {
        schema: {
          tags: ["tags"],
          summary: "Create a tag (name 1-40 characters, unique per owner ignoring case; colour from the palette, else one picked from the name)",
          querystring: TagOwnerQuery,
          body: CreateTagBody,
          response: { 201: TagReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req, reply) => {
        const tag = await ctx.tags.create(activeUser(req), req.body, req.query.owner);
        return reply.code(201).send({ status: "success" as const, tag });
      },
    );

    scope.patch(
      "/api/tags/:id",
      {
        schema: {
          tags: ["tags"],
          summary: "Rename or recolour a tag (its owner only)",
          params: IdParams,
          body: UpdateTagBody,
          response: { 200: TagReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req) => ({ status: "success" as const, tag: await ctx.tags.update(activeUser(req), req.params.id, req.body) }),
    );

    scope.delete(
      "/api/tags/:id",
      {
        schema: {
          tags: ["tags"],
          summary: "Delete a tag (its owner only); its links lose it",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.tags.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}
