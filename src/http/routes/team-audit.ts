// The team's own audit log (docs/audit.md): GET /api/team/audit (filters, keyset paging) and its exports for a range,
// /api/team/audit.csv and /api/team/audit.json, streamed. The owner, or an admin with ?owner=; Enterprise.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { AuditPageReply } from "../../contract/admin.js";
import { TeamAuditExportQuery, TeamAuditQuery, exportReply } from "../../contract/audit.js";
import { auditDownload, auditRange } from "../../admin/audit-export.js";
import { auditedTeam } from "../../teams/audit.js";
import { signedIn } from "../auth.js";
import { numericCursor } from "./admin.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "audit" | "storage">;

const ACCESS =
  "The owner, or an admin of the team with ?owner= (404 without access, 403 forbidden for members and viewers); the owner on Enterprise (403 plan_required).";

export async function teamAuditRoutes(scope: App, ctx: Deps): Promise<void> {
  scope.get(
    "/api/team/audit",
    {
      schema: {
        tags: ["team"],
        summary: "My team's audit log, newest first: role and folder access changes, single sign-on, SCIM (filter by action, actor email, target id, days)",
        description: ACCESS,
        querystring: TeamAuditQuery,
        response: { 200: AuditPageReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const owner = await auditedTeam(ctx.storage.db, signedIn(req), q.owner);
      const page = await ctx.audit.list({
        teamId: owner.id,
        action: q.action,
        actor: q.actor,
        target: q.target,
        ...auditRange(q),
        before: numericCursor(q.cursor),
        limit: q.limit ?? 50,
      });
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...page };
    },
  );

  for (const format of ["csv", "json"] as const) {
    scope.get(
      `/api/team/audit.${format}`,
      {
        schema: {
          tags: ["team"],
          summary: `My team's audit log as ${format.toUpperCase()}: every entry the filters select (from/to: UTC days), newest first, streamed`,
          description: `${ACCESS} The entries are those of GET /api/team/audit${format === "csv" ? "; cells starting with = + - @, tab or CR get a ' prefix" : ""}.`,
          querystring: TeamAuditExportQuery,
          response: { 200: exportReply(format), ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const q = req.query;
        const owner = await auditedTeam(ctx.storage.db, signedIn(req), q.owner);
        const download = auditDownload(ctx.audit, "team", q, format, owner.id);
        return reply.headers(download.headers).send(download.body);
      },
    );
  }
}
