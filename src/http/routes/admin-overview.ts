// The operator console's overview route (docs/operator.md, Overview), inside the operator scope of admin.ts.
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { OverviewReply } from "../../contract/admin.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "adminOverview">;

export async function adminOverviewRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/admin/overview",
    {
      schema: {
        tags: ["operator"],
        summary: "Accounts, links, clicks this week, top links, open reports, health and blocklist size",
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: OverviewReply, ...errors(400, 401, 403) },
      },
    },
    async (_req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...(await ctx.adminOverview.read()) };
    },
  );
}
