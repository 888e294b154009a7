// The operator console's routes (docs/operator.md): everything under /api/admin/ in one scope whose
// first hook refuses everyone but an active operator, before any body is read or any handler runs.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { AuditPageReply, AuditQuery } from "../../contract/admin.js";
import { AuditExportQuery, exportReply } from "../../contract/audit.js";
import { auditDownload } from "../../admin/audit-export.js";

import { type OperatorDeps, operatorRoutes } from "../auth.js";
import { invalid } from "../../shared/errors.js";
import { adminAccountRoutes } from "./admin-accounts.js";
import { adminLinkRoutes } from "./admin-links.js";
import { adminOverviewRoutes } from "./admin-overview.js";
import { adminOrphanRoutes } from "./orphans.js";
import { adminReportRoutes } from "./admin-reports.js";
import { adminBlocklistRoutes } from "./admin-blocklist.js";
import { adminSsoRoutes } from "./sso.js";
import { adminAppRoutes } from "./deeplinks.js";

/** The services these routes use, and those of the console's parts: the compiler refuses any other. */
type Deps = OperatorDeps &
  Pick<AppContext, "audit"> &
  Parameters<typeof adminOverviewRoutes>[1] &
  Parameters<typeof adminOrphanRoutes>[1] &
  Parameters<typeof adminAccountRoutes>[1] &
  Parameters<typeof adminLinkRoutes>[1] &
  Parameters<typeof adminReportRoutes>[1] &
  Parameters<typeof adminBlocklistRoutes>[1] &
  Parameters<typeof adminSsoRoutes>[1] &
  Parameters<typeof adminAppRoutes>[1];

/** A numeric keyset cursor (the audit log's ids), or invalid_request. */
export function numericCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  if (!/^\d{1,15}$/.test(cursor)) throw invalid("cursor", "is not a cursor from a previous page");
  return Number(cursor);
}

export async function adminRoutes(app: App, ctx: Deps): Promise<void> {
  // After the /api scope's session and CSRF hooks, before parsing: a non-operator learns nothing more.
  await operatorRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/admin/audit",
      {
        schema: {
          tags: ["operator"],
          summary: "The audit log of operator actions, newest first (filter by action, operator email, target id)",
          querystring: AuditQuery,
          response: { 200: AuditPageReply, ...errors(400, 401, 403) },
        },
      },
      async (req) => {
        const q = req.query;
        const page = await ctx.audit.list({ action: q.action, actor: q.actor, target: q.target, before: numericCursor(q.cursor), limit: q.limit ?? 50 });
        return { status: "success" as const, ...page };
      },
    );

    for (const format of ["csv", "json"] as const) {
      scope.get(
        `/api/admin/audit.${format}`,
        {
          schema: {
            tags: ["operator"],
            summary: `The instance's audit log as ${format.toUpperCase()}: every entry the filters select (from/to: UTC days), newest first, streamed`,
            description: `Every team's entries and the operators'${format === "csv" ? "; cells starting with = + - @, tab or CR get a ' prefix" : ""}.`,
            querystring: AuditExportQuery,
            response: { 200: exportReply(format), ...errors(400, 401, 403) },
          },
        },
        async (req, reply) => {
          const download = auditDownload(ctx.audit, "instance", req.query, format);
          return reply.headers(download.headers).send(download.body);
        },
      );
    }

    await adminOverviewRoutes(scope, ctx);
    await adminOrphanRoutes(scope, ctx);
    await adminAccountRoutes(scope, ctx);
    await adminLinkRoutes(scope, ctx);
    await adminReportRoutes(scope, ctx);
    await adminBlocklistRoutes(scope, ctx);
    await adminSsoRoutes(scope, ctx);
    await adminAppRoutes(scope, ctx);
  });
}
