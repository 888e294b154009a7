// The Fastify application: error handling, security headers, /api scope with sessions and CSRF,
// OpenAPI, the dashboard's static files and every feature's routes.
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import Fastify, { LogController, type FastifyBaseLogger, type FastifySchema, type FastifyServerFactory, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from "fastify";
import cookie from "@fastify/cookie";
import fastifyStatic from "@fastify/static";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { AppContext } from "../context.js";
import { DomainError } from "../shared/errors.js";
import { ErrorBodySchema } from "./schemas.js";
import { sendBadRequestLine, sendError } from "./errors.js";
import { guardInput } from "./input-guard.js";
import { installSessionHooks } from "./auth.js";
import { authRoutes } from "./routes/auth.js";
import { profileRoutes } from "./routes/profile.js";
import { statsRoutes } from "./routes/stats.js";
import { keyRoutes } from "./routes/keys.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { externalRoutes } from "./routes/external.js";
import { opsRoutes } from "./routes/ops.js";
import { linkRoutes } from "./routes/links.js";
import { qrRoutes } from "./routes/qr.js";
import { teamRoutes } from "./routes/team.js";
import { redirectRoutes } from "./routes/redirect.js";
import { reportRoutes } from "./routes/report.js";
import { domainRoutes, tlsAskRoute } from "./routes/domains.js";
import { adminRoutes } from "./routes/admin.js";
import { HTML_CSP, errorPage, prefersJson } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";
import { type FastRedirect, fastRedirect } from "./fast-redirect.js";
import { trustOf } from "./proxy.js";

export interface RouteInfo {
  method: string;
  url: string;
  csrf: boolean;
  /** The route declares a body schema (routes without one take no body: input-guard.ts). */
  body: boolean;
  /** Its schemas (body, querystring, params), for tests that generate input for every route. */
  schema: FastifySchema | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    routeList: RouteInfo[];
  }
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Words the app uses at the root: never valid short aliases (the list lives with the links feature). */

const JSON_LIMIT = 1024 * 1024;


/** The node:http server Fastify would create, with the fast path in front of Fastify's handler. */
function withFastPath(fast: FastRedirect): FastifyServerFactory<RawServerDefault> {
  return (handler, opts) => {
    const server = createServer(opts.http ?? {}, (req, res) => {
      if (!fast(req, res)) handler(req, res);
    });
    // What Fastify sets on the server it creates itself.
    server.keepAliveTimeout = Number(opts.keepAliveTimeout);
    server.requestTimeout = Number(opts.requestTimeout);
    server.setTimeout(Number(opts.connectionTimeout));
    if (Number(opts.maxRequestsPerSocket) > 0) server.maxRequestsPerSocket = Number(opts.maxRequestsPerSocket);
    return server;
  };
}

export async function buildApp(ctx: AppContext): Promise<App> {
  // Cached plain links are answered before Fastify sees the request (fast-redirect.ts), which reads
  // trusted proxies' headers with the same trust function as Fastify.
  const trust = trustOf(ctx.config.trustProxy);
  const fast = fastRedirect(ctx.redirects, trust, ctx.config.countryHeader);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    // Per-request logs cost more than the redirect itself; failures are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request: it costs more than a redirect, and errors are logged with their context.
    childLoggerFactory: (logger) => logger,
    trustProxy: trust ?? false,
    bodyLimit: JSON_LIMIT,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
    serverFactory: withFastPath(fast),
    // A URL Fastify cannot decode (/%c0, /%) or a path parameter past maxParamLength: the contract's 400.
    frameworkErrors: (err, req, reply) => sendError(req, reply, err),
    // A request Node's parser refuses (control bytes in a header, a malformed request line): still the contract's body.
    clientErrorHandler: sendBadRequestLine,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addHook("onClose", (_i, done) => (fast.disable(), done()));
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Every route with its method and config, so tests can prove rules (CSRF) hold for all of them.
  const routes: RouteInfo[] = [];
  app.decorate("routeList", routes);
  app.addHook("onRoute", (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url, csrf: r.config?.csrf !== false, body: r.schema?.body !== undefined, schema: r.schema });
  });
  // Before every route's schema: no control characters anywhere, no body where none is declared.
  app.addHook("preValidation", guardInput);
  app.addSchema(ErrorBodySchema);

  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith("/api/") || prefersJson(req.headers.accept)) return sendError(req, reply, new DomainError("not_found", "Not found"));
    return reply.code(404).type("text/html; charset=utf-8").send(errorPage(404, "Not found", "There is nothing at this address."));
  });

  app.addHook("onSend", async (_req, reply, payload) => {
    // A redirect has no document to protect: it carries Location and Cache-Control only (as the fast path).
    if (reply.statusCode >= 300 && reply.statusCode < 400) return payload;
    reply.headers(SECURITY_HEADERS);
    const type = reply.getHeader("content-type");
    if (typeof type === "string" && type.startsWith("text/html") && !reply.hasHeader("content-security-policy")) {
      reply.header("content-security-policy", HTML_CSP);
    }
    return payload;
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: { title: "snip API", version: "1.0.0", description: "Short links, redirects, statistics and the external creation API." },
      components: {
        securitySchemes: {
          session: { type: "apiKey", in: "cookie", name: "snip_sid" },
          csrf: { type: "apiKey", in: "header", name: "X-CSRF-Token" },
          bearer: { type: "http", scheme: "bearer" },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  // Everything under /api: cookies, the session, and CSRF on state-changing methods.
  await app.register(async (api) => {
    await api.register(cookie);
    installSessionHooks(api, ctx);
    const scoped = api as unknown as App;
    await authRoutes(scoped, ctx);
    await profileRoutes(scoped, ctx);
    await linkRoutes(scoped, ctx);
    await qrRoutes(scoped, ctx);
    await statsRoutes(scoped, ctx);
    await keyRoutes(scoped, ctx);
    await teamRoutes(scoped, ctx);
    await webhookRoutes(scoped, ctx);
    await externalRoutes(scoped, ctx);
    await domainRoutes(scoped, ctx);
    await adminRoutes(scoped, ctx);
    scoped.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  });

  await opsRoutes(app, ctx);
  await tlsAskRoute(app, ctx);
  await reportRoutes(app, ctx);
  await redirectRoutes(app, ctx, trust);
  registerDashboard(app, ctx);
  return app;
}

/** The dashboard: built files from dist/web, index.html for "/" and every /app client route. */
function registerDashboard(app: App, ctx: AppContext): void {
  const index = join(ctx.config.webDir, "index.html");
  if (!existsSync(index)) {
    ctx.log.warn({ webDir: ctx.config.webDir }, "dashboard not built (run npm run build:web); serving the API only");
    const missing = errorPage(503, "Dashboard not built", "Run npm run build:web, then restart.");
    for (const path of ["/", "/app", "/app/*"]) app.get(path, { schema: { hide: true } }, async (_r, reply) => reply.code(503).type("text/html; charset=utf-8").send(missing));
    return;
  }
  const html = readFileSync(index);
  const sendIndex = async (_req: unknown, reply: { type(t: string): { header(k: string, v: string): { send(b: Buffer): unknown } } }) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(html);
  app.register(fastifyStatic, { root: join(ctx.config.webDir, "assets"), prefix: "/assets/", maxAge: "1y", immutable: true, index: false });
  for (const path of ["/", "/app", "/app/*"]) app.get(path, { schema: { hide: true } }, sendIndex);
  const favicon = join(ctx.config.webDir, "favicon.svg");
  if (existsSync(favicon)) {
    const svg = readFileSync(favicon);
    app.get("/favicon.svg", { schema: { hide: true } }, async (_r, reply) => reply.type("image/svg+xml").header("cache-control", "max-age=86400").send(svg));
  }
}
