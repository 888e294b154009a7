// The operator console's overview route (docs/operator.md, Overview), inside the operator scope of admin.ts.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { PLANS } from "../../accounts/plans.js";
import { errors, Nullable } from "../schemas.js";

const Count = Type.Integer({ minimum: 0 });

const OverviewSchema = Type.Object({
  status: Type.Literal("success"),
  accounts: Type.Object({ total: Count, active: Count, suspended: Count, by_plan: Type.Object(Object.fromEntries(PLANS.map((p) => [p, Count]))) }),
  links: Type.Object({ total: Count, disabled: Count }),
  clicks: Type.Object(
    { today: Count, week: Count },
    { description: "From the daily roll-up, UTC days: today, and today with the six days before (on SQLite up to CLICK_ROLLUP_MS behind)" },
  ),
  top_links: Type.Array(
    Type.Object({ id: Type.String(), alias: Type.String(), domain: Nullable(Type.String()), short_url: Type.String(), url: Type.String(), owner_email: Nullable(Type.String()), clicks: Count }),
    { description: "This week's ten most clicked links" },
  ),
  reports_open: Count,
  health: Type.Object({
    database: Type.Union([Type.Literal("ok"), Type.Literal("error")]),
    click_writer: Type.Object(
      { pending: Count, oldest_ms: Count },
      { description: "This instance: clicks buffered and not yet written, and the age of the oldest (0 when none)" },
    ),
    webhook_queue: Type.Object(
      { queued: Count, dropped: Count },
      { description: "This instance: link_click events waiting or in flight, and events dropped (queue full) since it started" },
    ),
  }),
  blocklist: Type.Object({ console: Count, file: Count }, { description: "Hosts blocked in the console and from BLOCKLIST_FILE" }),
});

export async function adminOverviewRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/admin/overview",
    {
      schema: {
        tags: ["operator"],
        summary: "Accounts, links, clicks this week, top links, open reports, health and blocklist size",
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: OverviewSchema, ...errors(400, 401, 403) },
      },
    },
    async (_req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...(await ctx.adminOverview.read()) };
    },
  );
}
