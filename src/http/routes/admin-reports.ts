// The operators' abuse report queue (docs/operator.md, Abuse reports): list, dismiss, disable the link,
// ban the owner. Registered inside the /api/admin/ scope, whose hook has already refused non-operators.
import type { FastifyRequest } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams } from "../../contract/common.js";
import { BanOwnerBody, ReportDisableLinkBody, ReportListQuery, ReportPageReply, ReportReply } from "../../contract/reports.js";

import { operatorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "reports">;

/** Every field of these bodies is optional: a request without a body means {} (as for dismiss, which takes none). */
async function noBodyIsEmpty(req: FastifyRequest): Promise<void> {
  if (req.body === undefined) req.body = {};
}

export async function adminReportRoutes(scope: App, ctx: Deps): Promise<void> {
  scope.get(
    "/api/admin/reports",
    {
      schema: {
        tags: ["operator"],
        summary: "Abuse reports, newest first (filter by state), each with its link and the link's report count",
        querystring: ReportListQuery,
        response: { 200: ReportPageReply, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const page = await ctx.reports.list({ state: req.query.state, cursor: req.query.cursor || undefined, limit: req.query.limit ?? 50 });
      return { status: "success" as const, ...page };
    },
  );

  scope.post(
    "/api/admin/reports/:id/dismiss",
    {
      schema: {
        tags: ["operator"],
        summary: "Dismiss a report (and the link's other open reports)",
        params: IdParams,
        response: { 200: ReportReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, report: await ctx.reports.dismiss(operatorOf(req), req.params.id) }),
  );

  scope.post(
    "/api/admin/reports/:id/disable-link",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: ["operator"],
        summary: "Disable the reported link (visitors get 410, or 451) and resolve its open reports",
        params: IdParams,
        body: ReportDisableLinkBody,
        response: { 200: ReportReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, report: await ctx.reports.disableLink(operatorOf(req), req.params.id, req.body) }),
  );

  scope.post(
    "/api/admin/reports/:id/ban-owner",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: ["operator"],
        summary: "Suspend the reported link's owner, disable every link of theirs, resolve their links' open reports",
        params: IdParams,
        body: BanOwnerBody,
        response: { 200: ReportReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, report: await ctx.reports.banOwner(operatorOf(req), req.params.id, req.body) }),
  );
}
