// Per-link statistics as JSON and as a CSV download (docs/api.md, Statistics).
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { requireCapability } from "../../accounts/plans.js";
import { csvFilename, exportCsv } from "../../clicks/csv.js";
import { errors } from "../../contract/common.js";
import { importedConversions, linkConversions, tracksConversions } from "../../conversions/conversion-stats.js";
import { dailyConversionColumns, withConversions } from "../../conversions/stats-rows.js";
import { can } from "../../accounts/plans.js";
import { anyAppFigure, appCounts, dailyAppColumns, hasAppFields } from "../../deeplinks/app-stats.js";
import { RangeQuery, StatsReply, type StatsRange } from "../../contract/stats.js";
import type { LinkRow, UserRow } from "../../storage/schema.js";
import { signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "links" | "sessions" | "splits" | "stats" | "storage">;

const Params = Type.Object({ id: Type.String({ maxLength: 200 }) });

/**
 * A link's statistics as `GET /api/links/{id}/stats` and the external API's `GET /api/external/links/{id}/stats`
 * answer them: the clicks (what the owner's plan shows), store visits, installs and opens for a link with an app or
 * with figures in the range (every plan), and on plans with conversions the range's conversions beside the clicks.
 */
export async function linkStatsReply(ctx: Omit<Deps, "sessions" | "links">, link: LinkRow, owner: UserRow, query: StatsRange) {
  const loaded = await ctx.stats.forLink(link, owner.plan, query);
  const p = ctx.stats.period(query, Number(link.created_at));
  const apps = await appCounts(ctx.storage.db, { linkIds: [link.id] }, p);
  const stats = hasAppFields(link) || anyAppFigure(apps) ? { ...loaded, apps } : loaded;
  if (!can(owner.plan, "conversions")) return { status: "success" as const, ...stats };
  // Conversions beside the clicks: the range's, per breakdown row, point and destination, and a running split's variants.
  const [conv, split, imported, tracks] = await Promise.all([
    linkConversions(ctx.storage.db, link.id, p),
    ctx.splits.figures(link),
    importedConversions(ctx.storage.db, link.id),
    tracksConversions(ctx.storage.db, link, owner),
  ]);
  return {
    ...withConversions({ status: "success" as const, ...stats }, conv),
    tracks_conversions: tracks,
    ...(split ? { split_test: split } : {}),
    ...(imported ? { imported_conversions: imported } : {}),
  };
}

export async function statsRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
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
        const { link, owner } = await ctx.links.access(signedIn(req), req.params.id);
        reply.header("Cache-Control", "private, no-store");
        return linkStatsReply(ctx, link, owner, req.query);
      },
    );

    scope.get(
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
            200: {
              description: "text/csv attachment (UTF-8 with BOM, CRLF)",
              content: { "text/csv": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } },
            },
            ...errors(400, 401, 403, 404),
          },
        },
      },
      async (req, reply) => {
        const { link, owner } = await ctx.links.access(signedIn(req), req.params.id);
        requireCapability(owner.plan, "stats_csv", "CSV export");
        const range = ctx.stats.period(req.query, Number(link.created_at));
        // Conversion columns (Business and up), then the app columns (a link with an app, or figures in the range).
        const [conversions, apps] = await Promise.all([
          can(owner.plan, "conversions") ? dailyConversionColumns(ctx.storage.db, link.id, range.days) : undefined,
          dailyAppColumns(ctx.storage.db, link, range.days),
        ]);
        const extra = {
          header: [...(conversions?.header ?? []), ...apps.header],
          cells: (date: string) => [...(conversions?.cells(date) ?? []), ...apps.cells(date)],
        };
        const csv = await exportCsv(ctx.storage, ctx.stats, link, range, undefined, extra);
        reply
          .type("text/csv; charset=utf-8")
          .header("Content-Disposition", `attachment; filename="${csvFilename(link.alias, range)}"`)
          .header("Cache-Control", "private, no-store");
        return reply.send(csv);
      },
    );
  });
}
