// The operator console's account routes (docs/operator.md, Accounts), inside the operator scope of admin.ts.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { PLANS } from "../../accounts/plans.js";
import { Body, errors, Nullable, OkSchema, PageQuery } from "../schemas.js";
import { operatorOf } from "../auth.js";

const PlanSchema = Type.Union(PLANS.map((p) => Type.Literal(p)));
const StatusSchema = Type.Union([Type.Literal("active"), Type.Literal("suspended")]);

export const AdminAccountSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  plan: Type.String(),
  status: Type.String(),
  is_admin: Type.Boolean(),
  email_verified: Type.Boolean(),
  created_at: Type.String(),
  last_sign_in_at: Nullable(Type.String()),
  links: Type.Integer({ description: "links the account owns" }),
  clicks: Type.Integer({ description: "their stored click counts summed" }),
});

const AccountReply = Type.Object({ status: Type.Literal("success"), account: AdminAccountSchema });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export async function adminAccountRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/admin/accounts",
    {
      schema: {
        tags: ["operator"],
        summary: "Accounts, newest first, with their link and click totals (q: email contains; plan; status)",
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 254 })), plan: Type.Optional(PlanSchema), status: Type.Optional(StatusSchema), ...PageQuery },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ status: Type.Literal("success"), accounts: Type.Array(AdminAccountSchema), next_cursor: Nullable(Type.String()) }),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = await ctx.accountsAdmin.list({ q: q.q, plan: q.plan, status: q.status, cursor: q.cursor, limit: q.limit ?? 50 });
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...page };
    },
  );

  app.get(
    "/api/admin/accounts/:id",
    {
      schema: { tags: ["operator"], summary: "One account with its link and click totals", params: IdParams, response: { 200: AccountReply, ...errors(401, 403, 404) } },
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, account: await ctx.accountsAdmin.get(req.params.id) };
    },
  );

  app.patch(
    "/api/admin/accounts/:id",
    {
      schema: {
        tags: ["operator"],
        summary: "Change an account's plan or status (audited); not your own suspension or downgrade (409)",
        params: IdParams,
        body: Body({ plan: Type.Optional(PlanSchema), status: Type.Optional(StatusSchema) }),
        response: { 200: AccountReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const account = await ctx.accountsAdmin.update(await operatorOf(ctx, req), req.params.id, req.body);
      return { status: "success" as const, account };
    },
  );

  app.delete(
    "/api/admin/accounts/:id",
    {
      schema: {
        tags: ["operator"],
        summary: "Delete an account and everything it owns (audited); confirm_email must be its email; not your own (409)",
        params: IdParams,
        body: Body({ confirm_email: Type.String({ maxLength: 254 }) }),
        response: { 200: OkSchema, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      await ctx.accountsAdmin.remove(await operatorOf(ctx, req), req.params.id, req.body.confirm_email);
      return { status: "success" as const };
    },
  );
}
