// GET /metrics on the main port (docs/operations.md, Metrics): Prometheus text for
// `Authorization: Bearer <METRICS_TOKEN>`; with METRICS_PORT, the same without a token on 127.0.0.1 only.
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { type Metrics, bearerMatches } from "../metrics.js";
import { DomainError } from "../../shared/errors.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "config">;

export async function metricsRoutes(app: App, ctx: Deps, metrics: Metrics): Promise<void> {
  // Every 429 a route answers, by the route's pattern (the redirect route's own refusals included).
  app.addHook("onResponse", async (req, reply) => {
    if (reply.statusCode === 429) metrics.refused(req.routeOptions.url ?? "unknown");
  });

  const token = ctx.config.metricsToken;
  if (token !== null) {
    app.get("/metrics", { schema: { hide: true } }, async (req, reply) => {
      if (!bearerMatches(req.headers.authorization, token)) {
        reply.header("www-authenticate", 'Bearer realm="metrics"');
        throw new DomainError("unauthenticated", "Send Authorization: Bearer <METRICS_TOKEN>");
      }
      return reply
        .type(metrics.contentType)
        .header("cache-control", "no-store")
        .send(await metrics.text());
    });
  }

  const port = ctx.config.metricsPort;
  if (port > 0) {
    let server: Awaited<ReturnType<Metrics["listen"]>> | null = null;
    app.addHook("onListen", async () => {
      server = await metrics.listen(port);
    });
    app.addHook("onClose", async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    });
  }
}
