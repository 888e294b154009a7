// The operator console's account routes (docs/operator.md, Accounts), inside the operator scope of admin.ts.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { AccountPageReply, AccountQuery, AccountReply, ConfirmEmailBody, UpdateAccountBody } from "../../contract/admin.js";

import { operatorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "accountsAdmin">;

export async function adminAccountRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/admin/accounts",
    {
      schema: {
        tags: ["operator"],
        summary: "Accounts, newest first, with their link and click totals (q: email contains; plan; status)",
        querystring: AccountQuery,
        response: { 200: AccountPageReply, ...errors(400, 401, 403) },
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
      schema: {
        tags: ["operator"],
        summary: "One account with its link and click totals",
        params: IdParams,
        response: { 200: AccountReply, ...errors(401, 403, 404) },
      },
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
        body: UpdateAccountBody,
        response: { 200: AccountReply, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const account = await ctx.accountsAdmin.update(operatorOf(req), req.params.id, req.body);
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
        body: ConfirmEmailBody,
        response: { 200: OkSchema, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      await ctx.accountsAdmin.remove(operatorOf(req), req.params.id, req.body.confirm_email);
      return { status: "success" as const };
    },
  );
}
