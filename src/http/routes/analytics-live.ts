// The live feed (docs/api.md, Live feed): Server-Sent Events of the latest clicks of one owner's links,
// for the owner and its active team members, on Business and above. app.ts ends the streams when the
// server closes (a graceful shutdown waits for open responses).
import { PassThrough } from "node:stream";
import { Type } from "typebox";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { errors } from "../../contract/common.js";
import { LiveClickSchema, LiveQuery, LiveSkippedSchema } from "../../contract/live.js";
import { liveOwner, mayStillWatch, recentClicks } from "../../analytics/live-backlog.js";
import { signedIn, signedInRoutes } from "../auth.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "config" | "live" | "log" | "sessions" | "storage">;

export async function liveRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/analytics/live",
      {
        schema: {
          tags: ["analytics"],
          summary: "Live feed (Business and above): Server-Sent Events of the latest clicks on the owner's links (owner: a team owner's, for active members)",
          description:
            "text/event-stream. First the owner's latest stored clicks (up to 20, oldest first), then each new click within a second as `event: click` " +
            "(data: the click below); past 20 events a second the rest are counted and reported as `event: skipped` (data: {count}). A comment every 15 s " +
            "when idle. At most 5 streams per account (429 rate_limited). No visitor address or user agent is ever sent.",
          querystring: LiveQuery,
          response: {
            200: {
              description: "text/event-stream; each `data:` line is one JSON object",
              content: { "text/event-stream": { schema: Type.Unsafe<unknown>(Type.Union([LiveClickSchema, LiveSkippedSchema])) } },
            },
            ...errors(400, 401, 403, 404, 429),
          },
        },
      },
      async (req, reply) => {
        const actor = signedIn(req);
        const owner = await liveOwner(ctx.storage.db, actor, req.query.owner);
        const body = new PassThrough();
        const sessionId = req.sessionId;
        const stream = ctx.live.open(actor.id, owner.id, body, async () =>
          mayStillWatch(ctx.storage.db, sessionId ? await ctx.sessions.userFor(sessionId) : null, owner.id),
        );
        reply.raw.once("close", () => stream.close());
        recentClicks(ctx.storage.db, ctx.storage.dialect, owner.id, ctx.config.baseUrl.host).then(
          (backlog) => stream.start(backlog),
          (err: unknown) => {
            ctx.log.warn({ err }, "live feed: the latest clicks could not be read");
            stream.start([]);
          },
        );
        return (
          reply
            .type("text/event-stream; charset=utf-8")
            .header("cache-control", "no-store")
            // nginx buffers responses by default: events would arrive in lumps.
            .header("x-accel-buffering", "no")
            .send(body)
        );
      },
    );
  });
}
