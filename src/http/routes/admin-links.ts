// The operator console's link routes (docs/operator.md, Links), inside the operator scope of admin.ts.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams } from "../../contract/common.js";
import { AdminLinkPageReply, AdminLinkQuery, AdminLinkReply, DisableBulkBody, DisableLinkBody, DisabledCountReply } from "../../contract/admin.js";

import { operatorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "linkModeration">;

export async function adminLinkRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/api/admin/links",
    {
      schema: {
        tags: ["operator"],
        summary:
          "Links of every account, newest first (q: alias or destination contains; owner: email contains; domain: exact, empty for the main host; state; health)",
        description:
          "States exclude each other in the order visitors meet them: disabled, blocked, expired, limit_reached, active. The blocklist lives in memory: while it is not empty, every state but disabled is decided in memory after SQL, and each request looks at up to 5000 links, so a page may hold fewer than limit links, even none, with a next_cursor to go on from.",
        querystring: AdminLinkQuery,
        response: { 200: AdminLinkPageReply, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = await ctx.linkModeration.search({
        q: q.q,
        owner: q.owner,
        domain: q.domain,
        state: q.state,
        health: q.health,
        cursor: q.cursor,
        limit: q.limit ?? 50,
      });
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...page };
    },
  );

  app.post(
    "/api/admin/links/disable-bulk",
    {
      schema: {
        tags: ["operator"],
        summary: "Disable every active link of an account (owner_id), or every link with a destination on host or its subdomains (audited once)",
        body: DisableBulkBody,
        response: { 200: DisabledCountReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const disabled = await ctx.linkModeration.disableBulk(operatorOf(req), req.body);
      return { status: "success" as const, disabled };
    },
  );

  app.post(
    "/api/admin/links/:id/disable",
    {
      schema: {
        tags: ["operator"],
        summary: "Disable a link: visitors get 410 (or 451) and a page saying so, the owner sees the reason (audited)",
        params: IdParams,
        body: DisableLinkBody,
        response: { 200: AdminLinkReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const link = await ctx.linkModeration.disable(operatorOf(req), req.params.id, req.body);
      return { status: "success" as const, link };
    },
  );

  app.post(
    "/api/admin/links/:id/enable",
    {
      schema: {
        tags: ["operator"],
        summary: "Serve a disabled link again (audited); 409 when it is not disabled",
        params: IdParams,
        response: { 200: AdminLinkReply, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => {
      const link = await ctx.linkModeration.enable(operatorOf(req), req.params.id);
      return { status: "success" as const, link };
    },
  );
}
