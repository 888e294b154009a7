// Per-link statistics as JSON and as a CSV download (API.md, Links: /api/links/{id}/stats[.csv]).
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { requireCapability } from "../../accounts/plans.js";
import { csvFilename, exportCsv } from "../../clicks/csv.js";
import { errors } from "../schemas.js";
import { requireUser } from "../auth.js";

const Day = Type.String({ pattern: "^(\\d{4}-\\d{2}-\\d{2})?$", description: "UTC day, YYYY-MM-DD; both ends included" });
const RangeQuery = Type.Object(
  {
    from: Type.Optional(Day),
    to: Type.Optional(Day),
  },
  { additionalProperties: false, description: "Default: the last 30 days ending today (UTC); at most 366 days" },
);
const Params = Type.Object({ id: Type.String({ maxLength: 200 }) });

const Top = (key: string) => Type.Array(Type.Object({ [key]: Type.String(), clicks: Type.Integer() }));

const StatsReply = Type.Object({
  status: Type.Literal("success"),
  link_id: Type.String(),
  alias: Type.String(),
  from: Type.String(),
  to: Type.String(),
  total_clicks: Type.Integer({ description: "All-time clicks of the link" }),
  advanced: Type.Boolean({ description: "false on plans without advanced statistics: the keys below are then absent" }),
  message: Type.Optional(Type.String()),
  required_plan: Type.Optional(Type.String()),
  range_clicks: Type.Optional(Type.Integer({ description: "Clicks from `from` to `to`" })),
  daily: Type.Optional(Type.Array(Type.Object({ date: Type.String(), clicks: Type.Integer() }), { description: "Every day of the range, zero-filled" })),
  countries: Type.Optional(Top("country")),
  devices: Type.Optional(Top("device")),
  browsers: Type.Optional(Top("browser")),
  os: Type.Optional(Top("os")),
  referrers: Type.Optional(Top("referrer")),
  bots: Type.Optional(Type.Integer()),
  bot_share: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});

export async function statsRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/links/:id/stats",
    {
      schema: {
        tags: ["stats"],
        summary: "Statistics of a link (owner or active team member); the owner's Pro plan and above add the daily series and breakdowns",
        params: Params,
        querystring: RangeQuery,
        response: { 200: StatsReply, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => {
      // Owner or active team member (not_found otherwise); what is shown follows the owner's plan.
      const { link, owner } = await ctx.links.access(await requireUser(ctx, req), req.params.id);
      const stats = await ctx.stats.forLink(link, owner.plan, req.query);
      reply.header("Cache-Control", "private, no-store");
      return { status: "success" as const, ...stats };
    },
  );

  app.get(
    "/api/links/:id/stats.csv",
    {
      schema: {
        tags: ["stats"],
        summary: "CSV download (Pro and above): the daily series, then every click of the range in time order",
        description:
          "Streamed as it is read (a page of clicks at a time), however many clicks the range holds. Cells starting with = + - @, tab or CR get a ' prefix.",
        params: Params,
        querystring: RangeQuery,
        response: {
          200: { description: "text/csv attachment (UTF-8 with BOM, CRLF)", content: { "text/csv": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } } },
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (req, reply) => {
      const { link, owner } = await ctx.links.access(await requireUser(ctx, req), req.params.id);
      requireCapability(owner.plan, "stats_csv", "CSV export");
      const range = ctx.stats.range(req.query);
      const csv = await exportCsv(ctx.storage, ctx.stats, link, range);
      reply
        .type("text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="${csvFilename(link.alias, range)}"`)
        .header("Cache-Control", "private, no-store");
      return reply.send(csv);
    },
  );
}
