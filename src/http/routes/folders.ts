// An account's folders from the dashboard (docs/folders.md): list with counts, create, rename, delete.
// Session + CSRF; `owner` lets an active team member list and create the owner's folders.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, errors } from "../../contract/common.js";
import { FolderBody, FolderDeleteReply, FolderListReply, FolderOwnerQuery, FolderReply } from "../../contract/folders.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "folders">;

export async function folderRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/folders",
      {
        schema: {
          tags: ["folders"],
          summary: "The caller's folders (or a team owner's) in name order, with their link counts",
          querystring: FolderOwnerQuery,
          response: { 200: FolderListReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, folders: await ctx.folders.list(signedIn(req), req.query.owner) };
      },
    );

    scope.post(
      "/api/folders",
      {
        schema: {
          tags: ["folders"],
          summary: "Create a folder (Business and above; name 1-60 characters, unique per account ignoring case; at most 200)",
          querystring: FolderOwnerQuery,
          body: FolderBody,
          response: { 201: FolderReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req, reply) => {
        const folder = await ctx.folders.create(activeUser(req), req.body.name, req.query.owner);
        return reply.code(201).send({ status: "success" as const, folder });
      },
    );

    scope.patch(
      "/api/folders/:id",
      {
        schema: {
          tags: ["folders"],
          summary: "Rename a folder (its owner only, Business and above)",
          params: IdParams,
          body: FolderBody,
          response: { 200: FolderReply, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (req) => ({ status: "success" as const, folder: await ctx.folders.rename(activeUser(req), req.params.id, req.body.name) }),
    );

    scope.delete(
      "/api/folders/:id",
      {
        schema: {
          tags: ["folders"],
          summary: "Delete a folder (its owner only, any plan); its links move to no folder",
          params: IdParams,
          response: { 200: FolderDeleteReply, ...errors(401, 403, 404) },
        },
      },
      async (req) => ({ status: "success" as const, moved: await ctx.folders.delete(activeUser(req), req.params.id) }),
    );
  });
}
