// Click-stream management from the dashboard (docs/api.md, Click streams; docs/stream.md): list with the
// delivery status, create, edit, activate/deactivate, remove. Session + CSRF; Business and Enterprise.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors, IdParams, OkSchema } from "../../contract/common.js";
import { BROKER_KIND_NAMES } from "../../contract/broker-kinds.js";
import { CreateStreamBody, StreamListReply, StreamOwnerQuery, StreamReply, UpdateStreamBody } from "../../contract/streams.js";
import { activeUser, signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "sessions" | "streams">;

export async function streamRoutes(app: App, ctx: Deps): Promise<void> {
  const noStore = { "Cache-Control": "no-store" };

  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/streams",
      {
        schema: {
          tags: ["streams"],
          summary: "The signed-in account's click streams (owner: a team owner's, webhooks.manage), oldest first, each with its delivery status",
          querystring: StreamOwnerQuery,
          response: { 200: StreamListReply, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const streams = await ctx.streams.list(signedIn(req), req.query.owner);
        reply.headers(noStore);
        return { status: "success" as const, streams, private_receivers: ctx.streams.privateReceivers };
      },
    );

    scope.post(
      "/api/streams",
      {
        schema: {
          tags: ["streams"],
          summary: `Send the account's clicks (owner: a team owner's, webhooks.manage) to its own broker (${BROKER_KIND_NAMES.join(", ")}); the URL's host is checked like a webhook receiver's`,
          querystring: StreamOwnerQuery,
          body: CreateStreamBody,
          response: { 201: StreamReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req, reply) => {
        const stream = await ctx.streams.create(activeUser(req), req.body, req.query.owner);
        reply.headers(noStore);
        return reply.code(201).send({ status: "success" as const, stream });
      },
    );

    scope.patch(
      "/api/streams/:id",
      {
        schema: {
          tags: ["streams"],
          summary: "Rename, change the broker URL (checked again), activate or deactivate (events waiting are dropped)",
          params: IdParams,
          body: UpdateStreamBody,
          response: { 200: StreamReply, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => {
        const stream = await ctx.streams.update(activeUser(req), req.params.id, req.body);
        return { status: "success" as const, stream };
      },
    );

    scope.delete(
      "/api/streams/:id",
      {
        schema: {
          tags: ["streams"],
          summary: "Remove a click stream and the events waiting for it",
          params: IdParams,
          response: { 200: OkSchema, ...errors(401, 403, 404) },
        },
      },
      async (req) => {
        // Removing stays possible for a suspended account or a lower plan: it only takes something away.
        await ctx.streams.remove(signedIn(req), req.params.id);
        return { status: "success" as const };
      },
    );
  });
}
