// Bio pages (docs/bio-pages.md): the account's pages under /api (session + CSRF). They act on the caller's own
// account (no ?owner=); the pages themselves are served at /{slug} by the redirect (routes/redirect.ts, fast-redirect.ts).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, OkSchema, errors } from "../../contract/common.js";
import { BioPageListReply, BioPageReply, CreateBioPageBody, UpdateBioPageBody } from "../../contract/bio-pages.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

type Deps = Pick<AppContext, "sessions" | "bioPages">;

export async function bioPageRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/bio-pages",
      {
        schema: {
          tags: ["bio-pages"],
          summary: "The account's bio pages, newest first, each with its views and its buttons' clicks",
          response: { 200: BioPageListReply, ...errors(401) },
        },
      },
      async (_req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, pages: await ctx.bioPages.list(signedIn(_req)) };
      },
    );

    scope.post(
      "/api/bio-pages",
      {
        schema: {
          tags: ["bio-pages"],
          summary:
            "Publish a bio page at /{slug} on the main host or a verified custom domain (domain_id); each link block's link_id a link of the account; Pro and up. A slug that is an alias there: 409 alias_taken",
          body: CreateBioPageBody,
          response: { 201: BioPageReply, ...errors(400, 401, 403, 409) },
        },
      },
      async (req, reply) => reply.code(201).send({ status: "success" as const, page: await ctx.bioPages.create(activeUser(req), req.body) }),
    );

    scope.get(
      "/api/bio-pages/:id",
      {
        schema: {
          tags: ["bio-pages"],
          summary: "A bio page with its statistics: views (the page's own visits) and each button's clicks",
          params: IdParams,
          response: { 200: BioPageReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, page: await ctx.bioPages.get(signedIn(req), req.params.id) };
      },
    );

    scope.patch(
      "/api/bio-pages/:id",
      {
        schema: {
          tags: ["bio-pages"],
          summary: "Edit a bio page (the fields given); visitors see the change from the next request on, on every instance",
          params: IdParams,
          body: UpdateBioPageBody,
          response: { 200: BioPageReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req) => ({ status: "success" as const, page: await ctx.bioPages.update(activeUser(req), req.params.id, req.body) }),
    );

    scope.delete(
      "/api/bio-pages/:id",
      {
        schema: {
          tags: ["bio-pages"],
          summary: "Delete a bio page: its address answers 404 from the next request on, on every instance",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        await ctx.bioPages.delete(activeUser(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}
