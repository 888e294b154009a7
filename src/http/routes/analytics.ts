// Account analytics as JSON and as a CSV download (docs/api.md, Account analytics).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { AnalyticsQuery, AnalyticsReply } from "../../contract/analytics.js";
import { analyticsCsv, analyticsFilename } from "../../analytics/analytics-csv.js";
import { signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "analytics" | "sessions">;

export async function analyticsRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/analytics",
      {
        schema: {
          tags: ["stats"],
          summary:
            "Account analytics (Business and above): every link of the caller's account, or of a team owner's (owner), over a period, filtered by link, domain, tag and folder",
          description:
            "Totals of clicks, visitors and QR scans with their change against the period before, the series in the time zone tz, the top 50 links and the breakdowns. Breakdowns and top links count the UTC days the period touches.",
          querystring: AnalyticsQuery,
          response: { 200: AnalyticsReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const analytics = await ctx.analytics.read(signedIn(req), req.query);
        reply.header("Cache-Control", "private, no-store");
        return { status: "success" as const, ...analytics };
      },
    );

    scope.get(
      "/api/analytics.csv",
      {
        schema: {
          tags: ["stats"],
          summary: "Account analytics as CSV (Business and above): the totals, the series, the top links and each breakdown, one section after the other",
          description: "Cells starting with = + - @, tab or CR get a ' prefix.",
          querystring: AnalyticsQuery,
          response: {
            200: {
              description: "text/csv attachment (UTF-8 with BOM, CRLF)",
              content: { "text/csv": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } },
            },
            ...errors(400, 401, 403, 404),
          },
        },
      },
      async (req, reply) => {
        const analytics = await ctx.analytics.read(signedIn(req), req.query);
        reply
          .type("text/csv; charset=utf-8")
          .header("Content-Disposition", `attachment; filename="${analyticsFilename(analytics)}"`)
          .header("Cache-Control", "private, no-store");
        return reply.send(analyticsCsv(analytics));
      },
    );
  });
}
