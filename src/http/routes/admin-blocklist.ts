// The operator console's destination blocklist (docs/operator.md, Destination blocklist): list the
// console's hosts with BLOCKLIST_FILE's state, add and remove hosts, and the threat feeds' state and a
// reload (Threat feeds); registered inside the operator scope.
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { OkSchema, errors } from "../../contract/common.js";
import { BlockHostBody, BlockedHostReply, BlocklistQuery, BlocklistReply, ThreatFeedsReply } from "../../contract/admin.js";

import { operatorOf } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "blocklistAdmin" | "threatFeeds">;

/** `scope`: the operator scope of routes/admin.ts (its hook has already refused non-operators). */
export async function adminBlocklistRoutes(scope: App, ctx: Deps): Promise<void> {
  scope.get(
    "/api/admin/blocklist",
    {
      schema: {
        tags: ["operator"],
        summary: "The console's blocked destination hosts, newest first (q searches host and note), and BLOCKLIST_FILE's state",
        querystring: BlocklistQuery,
        response: { 200: BlocklistReply, ...errors(400, 401, 403) },
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
        body: BlockHostBody,
        response: { 201: BlockedHostReply, ...errors(400, 401, 403, 409) },
      },
    },
    async (req, reply) => {
      const host = await ctx.blocklistAdmin.add(operatorOf(req), req.body.host, req.body.note ?? "");
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
      await ctx.blocklistAdmin.remove(operatorOf(req), req.params.host);
      return { status: "success" as const };
    },
  );

  scope.get(
    "/api/admin/threat-feeds",
    {
      schema: {
        tags: ["operator"],
        summary: "The threat feeds of THREAT_FEEDS as this instance holds them: rows, sites and addresses listed, the last read's time or error",
        response: { 200: ThreatFeedsReply, ...errors(401, 403) },
      },
    },
    async (_req, reply) => {
      reply.header("cache-control", "no-store");
      return { status: "success" as const, feeds: ctx.threatFeeds.status() };
    },
  );

  scope.post(
    "/api/admin/threat-feeds/reload",
    {
      schema: {
        tags: ["operator"],
        summary: "Read every threat feed again now (this instance), then file reports for links they list; answers when done",
        response: { 200: ThreatFeedsReply, ...errors(401, 403) },
      },
    },
    async () => ({ status: "success" as const, feeds: await ctx.threatFeeds.reloadAll() }),
  );
}
