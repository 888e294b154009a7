// The operators' abuse report queue (docs/operator.md, Abuse reports): list, dismiss, disable the link,
// ban the owner. Registered inside the /api/admin/ scope, whose hook has already refused non-operators.
import { Type } from "typebox";
import type { FastifyRequest } from "fastify";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { REPORT_STATES } from "../../admin/reports.js";
import { Body, errors, Nullable, PageQuery } from "../schemas.js";
import { AdminLinkSchema } from "./admin-links.js";
import { operatorOf } from "../auth.js";

const ReportSchema = Type.Object({
  id: Type.String(),
  link: Nullable(AdminLinkSchema),
  domain: Nullable(Type.String({ description: "The custom domain, null for the main host" })),
  alias: Type.String(),
  url: Type.String({ description: "The destination when reported" }),
  reason: Type.String(),
  details: Type.String(),
  reporter_email: Nullable(Type.String()),
  state: Type.String(),
  created_at: Type.String(),
  resolved_at: Nullable(Type.String()),
  resolved_by_email: Nullable(Type.String()),
  reports_for_link: Type.Integer({ description: "Reports of this link in every state, this one included" }),
});

/** Every field of these bodies is optional: a request without a body means {} (as for dismiss, which takes none). */
async function noBodyIsEmpty(req: FastifyRequest): Promise<void> {
  if (req.body === undefined) req.body = {};
}

const ReportReply = Type.Object({ status: Type.Literal("success"), report: ReportSchema });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export async function adminReportRoutes(scope: App, ctx: AppContext): Promise<void> {
  scope.get(
    "/api/admin/reports",
    {
      schema: {
        tags: ["operator"],
        summary: "Abuse reports, newest first (filter by state), each with its link and the link's report count",
        querystring: Type.Object({ state: Type.Optional(Type.Union(REPORT_STATES.map((s) => Type.Literal(s)))), ...PageQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object({ status: Type.Literal("success"), reports: Type.Array(ReportSchema), next_cursor: Nullable(Type.String()) }),
          ...errors(400, 401, 403),
        },
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
    async (req) => ({ status: "success" as const, report: await ctx.reports.dismiss(await operatorOf(ctx, req), req.params.id) }),
  );

  scope.post(
    "/api/admin/reports/:id/disable-link",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: ["operator"],
        summary: "Disable the reported link (visitors get 410, or 451) and resolve its open reports",
        params: IdParams,
        body: Body({
          reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "Shown to the owner; by default \"Reported as <reason>\"" })),
          status: Type.Optional(Type.Union([Type.Literal(410), Type.Literal(451)])),
        }),
        response: { 200: ReportReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, report: await ctx.reports.disableLink(await operatorOf(ctx, req), req.params.id, req.body) }),
  );

  scope.post(
    "/api/admin/reports/:id/ban-owner",
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: ["operator"],
        summary: "Suspend the reported link's owner, disable every link of theirs, resolve their links' open reports",
        params: IdParams,
        body: Body({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }),
        response: { 200: ReportReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => ({ status: "success" as const, report: await ctx.reports.banOwner(await operatorOf(ctx, req), req.params.id, req.body) }),
  );
}
