// Operations: liveness (/healthz, the database answers) and readiness (/readyz) for load balancers.
import { sql } from "kysely";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { HealthReply, ReadyReply, errors } from "../../contract/common.js";
import { unavailable } from "../errors.js";
import { DomainError } from "../../shared/errors.js";
import { SNIP_VERSION } from "../../ops/version.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "clicks" | "clock" | "config" | "readiness" | "storage">;

/** A database that does not answer `select 1` within this is reported unavailable (a hung connection, not only a refused one). */
const HEALTH_TIMEOUT_MS = 2_000;

export async function opsRoutes(app: App, ctx: Deps): Promise<void> {
  app.get(
    "/healthz",
    {
      schema: {
        tags: ["operations"],
        summary: "200 when the database answers (with the version running); 503 unavailable (with Retry-After) while it does not",
        response: { 200: HealthReply, ...errors(503) },
      },
    },
    async (_req, reply) => {
      reply.header("cache-control", "no-store");
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(unavailable()), HEALTH_TIMEOUT_MS);
      });
      try {
        await Promise.race([sql`select 1`.execute(ctx.storage.db), late]);
      } catch (err) {
        // Logged (once in a while) by the error handler with what failed; the answer shows none of it.
        throw Object.assign(unavailable(), { cause: err });
      } finally {
        clearTimeout(timer);
      }
      return { status: "success" as const, database: ctx.storage.dialect, version: SNIP_VERSION };
    },
  );

  app.get(
    "/readyz",
    {
      schema: {
        tags: ["operations"],
        summary:
          "200 while this instance takes traffic; 503 unavailable once shutdown began (DRAIN_DELAY_MS), while requests are still answered, and while its oldest click not written yet is older than CLICK_BACKLOG_READY_S",
        response: { 200: ReadyReply, ...errors(503) },
      },
    },
    async (_req, reply) => {
      reply.header("cache-control", "no-store");
      const { state } = ctx.readiness;
      if (state !== "ready") {
        throw new DomainError("unavailable", state === "draining" ? "This instance is shutting down" : "This instance is starting", undefined, undefined, 1);
      }
      // A writer far behind (PostgreSQL slower than the traffic): a balancer moves traffic elsewhere while it catches up.
      const limitS = ctx.config.clickBacklogReadyS;
      const oldestAt = limitS > 0 ? ctx.clicks.backlog().oldestAt : null;
      if (oldestAt !== null && ctx.clock.now() - oldestAt > limitS * 1000) {
        throw new DomainError("unavailable", "This instance's clicks are waiting to be written", undefined, undefined, 1);
      }
      return { status: "success" as const, state };
    },
  );
}
