// The operator console's link routes (docs/operator.md, Links), inside the operator scope of admin.ts.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { LinkSchema } from "../link-schemas.js";
import { Body, errors, Nullable, PageQuery } from "../schemas.js";
import { operatorOf } from "../auth.js";
import { REASON_MAX } from "../../admin/link-moderation.js";

export const AdminLinkSchema = Type.Object({
  ...LinkSchema.properties,
  owner_email: Nullable(Type.String({ description: "The owner's email; null for a link created signed out" })),
});

const LinkReply = Type.Object({ status: Type.Literal("success"), link: AdminLinkSchema });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const Reason = Type.String({ minLength: 1, maxLength: REASON_MAX, description: "Shown to the link's owner" });
const DisabledStatus = Type.Union([Type.Literal(410), Type.Literal(451)], { description: "What visitors get: 410 (default), or 451 unavailable for legal reasons" });

export async function adminLinkRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/api/admin/links",
    {
      schema: {
        tags: ["operator"],
        summary: "Links of every account, newest first (q: alias or destination contains; owner: email contains; domain: exact, empty for the main host; state)",
        description:
          "state=blocked (and state=active while the blocklist is not empty) is decided in memory: each request looks at up to 5000 links, so a page may hold fewer than limit links, even none, with a next_cursor to go on from.",
        querystring: Type.Object(
          {
            q: Type.Optional(Type.String({ maxLength: 2048 })),
            owner: Type.Optional(Type.String({ maxLength: 254 })),
            domain: Type.Optional(Type.String({ maxLength: 253 })),
            state: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("disabled"), Type.Literal("blocked")])),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ status: Type.Literal("success"), links: Type.Array(AdminLinkSchema), next_cursor: Nullable(Type.String()) }),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = await ctx.linkModeration.search({ q: q.q, owner: q.owner, domain: q.domain, state: q.state, cursor: q.cursor, limit: q.limit ?? 50 });
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
        body: Body({ owner_id: Type.Optional(Type.String({ maxLength: 64 })), host: Type.Optional(Type.String({ maxLength: 2048 })), reason: Reason, status: Type.Optional(DisabledStatus) }),
        response: { 200: Type.Object({ status: Type.Literal("success"), disabled: Type.Integer() }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const disabled = await ctx.linkModeration.disableBulk(await operatorOf(ctx, req), req.body);
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
        body: Body({ reason: Reason, status: Type.Optional(DisabledStatus) }),
        response: { 200: LinkReply, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const link = await ctx.linkModeration.disable(await operatorOf(ctx, req), req.params.id, req.body);
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
        response: { 200: LinkReply, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => {
      const link = await ctx.linkModeration.enable(await operatorOf(ctx, req), req.params.id);
      return { status: "success" as const, link };
    },
  );
}
