// Orphan visits (docs/orphan-visits.md): the operator's instance-wide report, a domain owner's report of
// that domain; and /robots.txt on every host (docs/api.md, Robots): Shlink's rule, the crawlable short
// links of the host allowed, everything else disallowed.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams } from "../../contract/common.js";
import { OrphanQuery, OrphanReply } from "../../contract/orphans.js";
import { orphanReport } from "../../orphans/orphan-report.js";
import { signedIn } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "clock" | "domains" | "orphans" | "redirects" | "storage">;

const DEFAULT_DAYS = 30;
/** Crawlable links listed per host at most (a robots.txt past 500 KiB is cut by crawlers anyway). */
const MAX_ALLOWED = 10_000;

/** Inside the operator scope (admin.ts). */
export async function adminOrphanRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/admin/orphan-visits",
    {
      schema: {
        tags: ["operator"],
        summary: "Orphan visits of every host (requests that matched no link): per day, top missing paths, referrers, devices",
        querystring: OrphanQuery,
        response: { 200: OrphanReply, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      // This instance's counts of the last seconds are written first, so the report is current.
      await ctx.orphans.flush();
      return { status: "success" as const, orphans: await orphanReport(ctx.storage.db, ctx.clock, req.query.days ?? DEFAULT_DAYS, undefined) };
    },
  );
}

/** Inside the signed-in scope of domains.ts: the owner's domain, or a team admin's (domains.manage; 404 for anyone else). */
export function domainOrphanRoute(app: App, ctx: Pick<AppContext, "domains" | "orphans" | "storage" | "clock">): void {
  app.get(
    "/api/domains/:id/orphan-visits",
    {
      schema: {
        tags: ["domains"],
        summary: "Orphan visits of one of the caller's custom domains (or a team owner's: domains.manage): per day, top missing paths, referrers, devices",
        params: IdParams,
        querystring: OrphanQuery,
        response: { 200: OrphanReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const domain = await ctx.domains.get(signedIn(req), req.params.id);
      reply.header("cache-control", "no-store");
      await ctx.orphans.flush();
      return { status: "success" as const, orphans: await orphanReport(ctx.storage.db, ctx.clock, req.query.days ?? DEFAULT_DAYS, domain.hostname) };
    },
  );
}

/** GET /robots.txt on the main host and every custom domain. */
export async function robotsRoute(app: App, ctx: Deps): Promise<void> {
  app.get("/robots.txt", { schema: { hide: true } }, async (req, reply) => {
    const domain = ctx.redirects.domainFor(req.hostname);
    const rows = await ctx.storage.db
      .selectFrom("links")
      .select("alias")
      .where("domain", "=", domain)
      .where("crawlable", "=", 1)
      .where("disabled_at", "is", null)
      .orderBy("alias")
      .limit(MAX_ALLOWED)
      .execute();
    const lines = ["# Short links here are for people: search engines may follow only those their owner marked crawlable.", "User-agent: *"];
    // "$" ends the match: /abc allows neither /abcd nor /abc/x.
    for (const r of rows) lines.push(`Allow: /${r.alias}$`);
    lines.push("Disallow: /", "");
    return reply.type("text/plain; charset=utf-8").header("cache-control", "public, max-age=300").send(lines.join("\n"));
  });
}
