// Link health (docs/health.md): a link's destinations with their state and last results, for whoever may read the link.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams } from "../../contract/common.js";
import { LinkHealthReply } from "../../contract/health.js";
import { signedIn, signedInRoutes } from "../auth.js";

type Deps = Pick<AppContext, "links" | "linkHealth" | "sessions">;

export async function linkHealthRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/links/:id/health",
      {
        schema: {
          tags: ["links"],
          summary:
            "The link's destinations (url, devices, rules, split variants, fallback), each with its state, last check and last results (owner or member who may read the link)",
          params: IdParams,
          response: { 200: LinkHealthReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        const link = await ctx.links.get(signedIn(req), req.params.id);
        reply.header("cache-control", "no-store");
        return { status: "success" as const, ...(await ctx.linkHealth.report(link.id)) };
      },
    );
  });
}
