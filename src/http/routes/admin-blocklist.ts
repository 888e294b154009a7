// The operator console's destination blocklist (docs/operator.md, Destination blocklist): list the
// console's hosts with BLOCKLIST_FILE's state, add and remove hosts; registered inside the operator scope.
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { Body, OkSchema, PageQuery, errors } from "../schemas.js";
import { MAX_NOTE } from "../../admin/blocklist-service.js";
import { operatorOf } from "../auth.js";

const BlockedHostSchema = Type.Object({
  host: Type.String(),
  note: Type.String(),
  source: Type.Literal("console"),
  created_at: Type.String(),
  created_by_email: Type.Union([Type.String(), Type.Null()]),
});

const FileSchema = Type.Object({
  path: Type.Union([Type.String(), Type.Null()]),
  hosts: Type.Integer(),
  skipped_lines: Type.Integer({ description: "Lines of the last good read that were neither an entry, blank nor a comment" }),
  loaded_at: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: "Why the last read failed (the last good list is kept), or null" }),
});

/** `scope`: the operator scope of routes/admin.ts (its hook has already refused non-operators). */
export async function adminBlocklistRoutes(scope: App, ctx: AppContext): Promise<void> {
  scope.get(
    "/api/admin/blocklist",
    {
      schema: {
        tags: ["operator"],
        summary: "The console's blocked destination hosts, newest first (q searches host and note), and BLOCKLIST_FILE's state",
        querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 300 })), ...PageQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            status: Type.Literal("success"),
            hosts: Type.Array(BlockedHostSchema),
            next_cursor: Type.Union([Type.String(), Type.Null()]),
            file: FileSchema,
          }),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req, reply) => {
      const page = await ctx.blocklistAdmin.list(req.query.q, req.query.cursor, req.query.limit ?? 50);
      reply.header("cache-control", "no-store");
      return { status: "success" as const, ...page, file: ctx.blocklistAdmin.fileStatus() };
    },
  );

  scope.post(
    "/api/admin/blocklist",
    {
      schema: {
        tags: ["operator"],
        summary: "Block a destination host and its subdomains (a URL gives its host): creations and edits are refused, existing links answer 410",
        body: Body({
          host: Type.String({ minLength: 1, maxLength: 2048 }),
          note: Type.Optional(Type.String({ maxLength: MAX_NOTE })),
        }),
        response: { 201: Type.Object({ status: Type.Literal("success"), host: BlockedHostSchema }), ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const host = await ctx.blocklistAdmin.add(await operatorOf(ctx, req), req.body.host, req.body.note ?? "");
      return reply.code(201).send({ status: "success" as const, host });
    },
  );

  scope.delete(
    "/api/admin/blocklist/:host",
    {
      schema: {
        tags: ["operator"],
        summary: "Unblock a host added in the console (BLOCKLIST_FILE's hosts are changed in the file)",
        params: Type.Object({ host: Type.String({ minLength: 1, maxLength: 2048 }) }),
        response: { 200: OkSchema, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      await ctx.blocklistAdmin.remove(await operatorOf(ctx, req), req.params.host);
      return { status: "success" as const };
    },
  );
}
