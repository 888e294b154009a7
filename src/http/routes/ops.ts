// Operations: health check for load balancers.
import { sql } from "kysely";
import { Type } from "typebox";
import type { App } from "../app.js";
import type { AppContext } from "../../context.js";
import { DomainError } from "../../shared/errors.js";

export async function opsRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    "/healthz",
    { schema: { tags: ["operations"], summary: "200 when the database answers", response: { 200: Type.Object({ status: Type.Literal("success"), database: Type.String() }) } } },
    async (_req, reply) => {
      try {
        await sql`select 1`.execute(ctx.storage.db);
      } catch (err) {
        ctx.log.error({ err }, "health check: database unreachable");
        throw new DomainError("internal_error", "Database unreachable");
      }
      reply.header("cache-control", "no-store");
      return { status: "success" as const, database: ctx.storage.dialect };
    },
  );
}
