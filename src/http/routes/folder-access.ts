// Members' access to single folders (docs/folders.md, Access): the table of a folder's members, setting one's access
// (Enterprise) and taking it back to the role's default. Session + CSRF; the owner, or an admin of the owner's team
// for members ranked below it (members.manage).
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, errors } from "../../contract/common.js";
import { FolderAccessBody, FolderAccessListReply, FolderAccessParams, FolderAccessReply } from "../../contract/folders.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "folderAccess">;

const WHO =
  "The owner, or an admin of the owner's team (members.manage) for members and viewers only: never the owner, another admin or itself (403 forbidden). " +
  "A folder hidden from the caller, or of a team it is not in, is 404 not_found.";

export async function folderAccessRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/folders/:id/access",
      {
        schema: {
          tags: ["folders"],
          summary: "Each member of the folder owner's team with its role, the access set for it (if any) and the access that holds",
          description:
            "The owner, or an admin of the owner's team (members.manage). A folder hidden from the caller, or of a team it is not in, is 404 not_found.",
          params: IdParams,
          response: { 200: FolderAccessListReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, folder_id: req.params.id, members: await ctx.folderAccess.list(signedIn(req), req.params.id) };
      },
    );

    scope.put(
      "/api/folders/:id/access",
      {
        schema: {
          tags: ["folders"],
          summary: "Set a member's access to a folder: none, read or write (Enterprise; audited as folder.access; holds from the member's next request)",
          description: `${WHO} user_id must be an active member of the owner's team (400 invalid_request on user_id). Below Enterprise: 403 plan_required.`,
          params: IdParams,
          body: FolderAccessBody,
          response: { 200: FolderAccessReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const member = await ctx.folderAccess.set(activeUser(req), req.params.id, req.body.user_id, req.body.access);
        return { status: "success" as const, folder_id: req.params.id, member };
      },
    );

    scope.delete(
      "/api/folders/:id/access/:user_id",
      {
        schema: {
          tags: ["folders"],
          summary: "Take a member's access to a folder back to its role's default (any plan; audited as folder.access)",
          description: `${WHO} A user_id that is not an active member of the owner's team is 400 invalid_request.`,
          params: FolderAccessParams,
          response: { 200: FolderAccessReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const member = await ctx.folderAccess.reset(activeUser(req), req.params.id, req.params.user_id);
        return { status: "success" as const, folder_id: req.params.id, member };
      },
    );
  });
}
