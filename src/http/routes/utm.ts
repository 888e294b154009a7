// An owner's UTM templates from the dashboard (docs/api.md, UTM templates): list, save, delete.
// Session + CSRF; `owner` lets an active team member list and save the owner's templates.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, OkSchema, errors } from "../../contract/common.js";
import { CreateUtmTemplateBody, UtmOwnerQuery, UtmTemplateListReply, UtmTemplateReply } from "../../contract/utm.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "utm">;

export async function utmRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/utm-templates",
      {
        schema: {
          tags: ["utm"],
          summary: "The caller's UTM templates (or a team owner's) in name order",
          querystring: UtmOwnerQuery,
          response: { 200: UtmTemplateListReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, templates: await ctx.utm.list(signedIn(req), req.query.owner) };
      },
    );

    scope.post(
      "/api/utm-templates",
      {
        schema: {
          tags: ["utm"],
          summary:
            "Save a UTM template (name 1-40 characters, unique per owner ignoring case; values up to 200 characters, at least one; at most 100 templates)",
          querystring: UtmOwnerQuery,
          body: CreateUtmTemplateBody,
          response: { 201: UtmTemplateReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req, reply) => {
        const template = await ctx.utm.create(activeUser(req), req.body, req.query.owner);
        return reply.code(201).send({ status: "success" as const, template });
      },
    );

    scope.delete(
      "/api/utm-templates/:id",
      { schema: { tags: ["utm"], summary: "Delete a UTM template (its owner only)", params: IdParams, response: { 200: OkSchema, ...errors(401, 403, 404) } } },
      async (req) => {
        await ctx.utm.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}
