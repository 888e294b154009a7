// The Fastify application: error handling, security headers, /api scope with sessions and CSRF,
// OpenAPI, the dashboard's static files and every feature's routes.
import { existsSync, readFileSync } from "node:fs";
import { type RequestListener, createServer } from "node:http";
import { join } from "node:path";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerFactory, type RawServerDefault } from "fastify";
import cookie from "@fastify/cookie";
import fastifyStatic from "@fastify/static";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { apiDocsOptions } from "./api-docs.js";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Settings } from "typebox/system";
import type { App, RouteInfo } from "./app-type.js";
import type { AppContext } from "../context.js";
import { DomainError } from "../shared/errors.js";
import { SHARED_SCHEMAS, cachedSerializerCompiler, cachedValidatorCompiler } from "./schema-compilers.js";
import { MAX_FIELD_ERRORS, sendBadRequestLine, sendError } from "./errors.js";
import { guardInput } from "./input-guard.js";
import { installSessionHooks } from "./auth.js";
import { installKeyRefusal } from "./key-auth.js";
import { externalLinkRoutes } from "./routes/external-links.js";
import { externalBioPageRoutes, externalShareRoutes } from "./routes/external-pages.js";
import { conversionRoutes } from "./routes/conversions.js";
import { TRACK_SCRIPT, TRACK_SCRIPT_PATH } from "../conversions/track-script.js";
import { authRoutes } from "./routes/auth.js";
import { reauthRoutes } from "./routes/reauth.js";
import { twoFactorRoutes } from "./routes/two-factor.js";
import { sessionRoutes } from "./routes/sessions.js";
import { profileRoutes } from "./routes/profile.js";
import { statsRoutes } from "./routes/stats.js";
import { analyticsRoutes } from "./routes/analytics.js";
import { keyRoutes } from "./routes/keys.js";
import { passkeyRoutes } from "./routes/passkeys.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { streamRoutes } from "./routes/streams.js";
import { tagRoutes } from "./routes/tags.js";
import { folderRoutes } from "./routes/folders.js";
import { folderAccessRoutes } from "./routes/folder-access.js";
import { utmRoutes } from "./routes/utm.js";
import { sharePageRoutes, shareRoutes } from "./routes/shares.js";
import { linkHealthRoutes } from "./routes/link-health.js";
import { bioPageRoutes } from "./routes/bio-pages.js";
import { importRoutes } from "./routes/imports.js";
import { externalRoutes } from "./routes/external.js";
import { opsRoutes } from "./routes/ops.js";
import { linkRoutes } from "./routes/links.js";
import { qrRoutes } from "./routes/qr.js";
import { teamRoutes } from "./routes/team.js";
import { robotsRoute } from "./routes/orphans.js";
import { redirectRoutes } from "./routes/redirect.js";
import type { Metrics } from "./metrics.js";
import { reportRoutes } from "./routes/report.js";
import { domainRoutes, tlsAskRoute } from "./routes/domains.js";
import { adminRoutes } from "./routes/admin.js";
import { integrationRoutes } from "./routes/integrations.js";
import { associationFileRoutes, domainAppRoutes } from "./routes/deeplinks.js";
import { deeplinkOpenRoutes } from "./routes/deeplink-open.js";
import { ssoRoutes } from "./routes/sso.js";
import { scimRoutes, sendScimError } from "./routes/scim.js";
import { SCIM_PATH } from "../sso/scim/tokens.js";
import { liveRoutes } from "./routes/analytics-live.js";
import { FAVICON_SVG, HTML_CSP, NOT_FOUND_PAGE, PASSWORD_SCRIPT, PASSWORD_SCRIPT_PATH, errorPage, prefersJson } from "./pages.js";
import { SECURITY_HEADERS } from "./security-headers.js";
import { type FastRedirect, fastRedirect } from "./fast-redirect.js";
import { type Trust, cleanForwardedFor, trustOf } from "./proxy.js";
import { capConnections } from "./connection-cap.js";

export type { App, RouteInfo } from "./app-type.js";

/** Words the app uses at the root: never valid short aliases (the list lives with the links feature). */

const JSON_LIMIT = 1024 * 1024;

/**
 * The node:http server Fastify would create, with the fast path in front of Fastify's handler; its
 * timeouts (slow clients: headers, whole request, idle keep-alive) hold for both, as does the
 * per-address connection cap.
 */
/**
 * For a person at a terminal (LOG_FORMAT=pretty): one line per request, the fast path's included,
 * without the query string (it may carry a token). JSON logs keep none: they cost more than a redirect.
 */
function requestLines(next: RequestListener, log: AppContext["log"]): RequestListener {
  return (req, res) => {
    const started = performance.now();
    res.once("finish", () => {
      const path = (req.url ?? "").split("?", 1)[0];
      log.info(`${req.method} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)} ms`);
    });
    next(req, res);
  };
}

function withFastPath(fast: FastRedirect, ctx: Pick<AppContext, "config" | "log" | "tracing">, trust: Trust | null): FastifyServerFactory<RawServerDefault> {
  const { config, log } = ctx;
  return (handler, opts) => {
    // With tracing on, its listener puts spans around both (ops/trace-spans.ts); off, nothing of it runs.
    const served: RequestListener = ctx.tracing
      ? ctx.tracing.serve(fast, handler)
      : (req, res) => {
          if (!fast(req, res, handler)) handler(req, res);
        };
    // Behind trusted proxies, X-Forwarded-For gives the client address: only entries that can be one count.
    const answer: RequestListener = trust === null ? served : (req, res) => (cleanForwardedFor(req), served(req, res));
    const server = createServer(
      {
        ...(opts.http as object | undefined),
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        // Node looks for overdue headers and requests on this interval (30 s by default, which would
        // let a slow client keep its socket up to 30 s past the timeout).
        connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(config.headersTimeoutMs / 4))),
      },
      config.logFormat === "pretty" ? requestLines(answer, log) : answer,
    );
    // What Fastify sets on the server it creates itself (keepAliveTimeout and requestTimeout from config, through Fastify's options).
    server.keepAliveTimeout = Number(opts.keepAliveTimeout);
    server.requestTimeout = Number(opts.requestTimeout);
    server.setTimeout(Number(opts.connectionTimeout));
    if (Number(opts.maxRequestsPerSocket) > 0) server.maxRequestsPerSocket = Number(opts.maxRequestsPerSocket);
    capConnections(server, config.connectionsPerAddress, trust, log);
    return server;
  };
}

export async function buildApp(ctx: AppContext): Promise<App> {
  // Cached plain links are answered before Fastify sees the request (fast-redirect.ts), which reads
  // trusted proxies' headers with the same trust function as Fastify.
  const trust = trustOf(ctx.config.trustProxy);
  // prom-client (and the @opentelemetry/api it requires) is loaded only when metrics are on (METRICS_TOKEN or METRICS_PORT).
  const metricsOn = ctx.config.metricsToken !== null || ctx.config.metricsPort > 0;
  const metrics: Metrics | null = metricsOn ? new (await import("./metrics.js")).Metrics(ctx) : null;
  const fast = fastRedirect(ctx.redirects, trust, ctx.config.countryHeader, metrics, ctx.appAssociations, { cache: ctx.bioCache, origin: ctx.config.origin });
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
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    requestTimeout: ctx.config.requestTimeoutMs,
    serverFactory: withFastPath(fast, ctx, trust),
    // A URL Fastify cannot decode (/%c0, /%) or a path parameter past maxParamLength: the contract's 400.
    frameworkErrors: (err, req, reply) => (req.url.startsWith(SCIM_PATH + "/") ? sendScimError(req, reply, err) : sendError(req, reply, err)),
    // A request Node's parser refuses (control bytes in a header, a malformed request line): still the contract's body.
    clientErrorHandler: sendBadRequestLine,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addHook("onClose", (_i, done) => (fast.disable(), done()));
  // Open live feeds are responses in flight: the server closes only once they end.
  app.addHook("preClose", (done) => (ctx.live.closeStreams(), done()));
  const tracing = ctx.tracing;
  // The request's span is named after the route's template (GET /api/links/:id), never the raw URL.
  if (tracing) app.addHook("onRequest", (req, _reply, done) => (tracing.routed(req.raw, req.routeOptions.url), done()));
  // Every wrong field of a body, not TypeBox's first 8 diagnostics (an unknown field yields two of them).
  Settings.Set({ maxErrors: 2 * MAX_FIELD_ERRORS });
  app.setValidatorCompiler(cachedValidatorCompiler);
  app.setSerializerCompiler(cachedSerializerCompiler);
  // Every route with its method and config, so tests can prove rules (CSRF) hold for all of them.
  const routes: RouteInfo[] = [];
  app.decorate("routeList", routes);
  app.addHook("onRoute", (r) => {
    for (const method of [r.method].flat()) {
      routes.push({ method, url: r.url, csrf: r.config?.csrf !== false, keyScopes: r.config?.keyScopes, body: r.schema?.body !== undefined, schema: r.schema });
    }
  });
  // A key on an /api route that does not declare scopes: 401 unauthenticated, before the body is read.
  installKeyRefusal(app);
  // Before every route's schema: no control characters anywhere, no body where none is declared.
  app.addHook("preValidation", guardInput);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => {
    // A page address that matched nothing on a short-link host: an orphan visit (docs/orphan-visits.md).
    if ((req.method === "GET" || req.method === "HEAD") && !req.url.startsWith("/api/") && !req.url.startsWith("/assets/")) {
      ctx.orphans.visited(ctx.redirects.domainFor(req.hostname), req.url, String(req.headers.referer ?? ""), String(req.headers["user-agent"] ?? ""));
    }
    if (req.url.startsWith("/api/") || prefersJson(req.headers.accept)) return sendError(req, reply, new DomainError("not_found", "Not found"));
    return reply.code(404).type("text/html; charset=utf-8").send(errorPage(404, NOT_FOUND_PAGE));
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
  await app.register(swaggerUi, apiDocsOptions);

  // Everything under /api: cookies, the session, and CSRF on state-changing methods.
  await app.register(async (api) => {
    await api.register(cookie);
    installSessionHooks(api, ctx);
    const scoped = api as unknown as App;
    await authRoutes(scoped, ctx);
    await reauthRoutes(scoped, ctx);
    await twoFactorRoutes(scoped, ctx);
    await sessionRoutes(scoped, ctx);
    await passkeyRoutes(scoped, ctx);
    await profileRoutes(scoped, ctx);
    await linkRoutes(scoped, ctx);
    await tagRoutes(scoped, ctx);
    await folderRoutes(scoped, ctx);
    await folderAccessRoutes(scoped, ctx);
    await utmRoutes(scoped, ctx);
    await shareRoutes(scoped, ctx);
    await linkHealthRoutes(scoped, ctx);
    await bioPageRoutes(scoped, ctx);
    await importRoutes(scoped, ctx);
    await qrRoutes(scoped, ctx);
    await statsRoutes(scoped, ctx);
    await analyticsRoutes(scoped, ctx);
    await liveRoutes(scoped, ctx);
    await keyRoutes(scoped, ctx);
    await teamRoutes(scoped, ctx);
    await webhookRoutes(scoped, ctx);
    await streamRoutes(scoped, ctx);
    await externalRoutes(scoped, ctx);
    await externalLinkRoutes(scoped, ctx);
    await externalShareRoutes(scoped, ctx);
    await externalBioPageRoutes(scoped, ctx);
    await conversionRoutes(scoped, ctx);
    await domainRoutes(scoped, ctx);
    await domainAppRoutes(scoped, ctx);
    await deeplinkOpenRoutes(scoped, ctx);
    await adminRoutes(scoped, ctx);
    await ssoRoutes(scoped, ctx);
    await integrationRoutes(scoped, ctx);
    scoped.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  });
  // /scim/v2: the identity providers' side of provisioning, with the connection's bearer token (no session, no CSRF).
  await scimRoutes(app as unknown as App, ctx);

  await opsRoutes(app, ctx);
  await tlsAskRoute(app, ctx);
  await reportRoutes(app, ctx);
  await sharePageRoutes(app, ctx);
  await robotsRoute(app, ctx);
  await associationFileRoutes(app, ctx);
  staticFiles(app);
  if (metrics) await (await import("./routes/metrics.js")).metricsRoutes(app, ctx, metrics);
  await redirectRoutes(app, ctx, trust, metrics);
  registerDashboard(app, ctx);
  return app;
}

/** The small files every host serves, whether or not the dashboard is built. */
function staticFiles(app: App): void {
  // The link-password page's show/hide control (pages.ts): on every host, as the page itself.
  app.get(PASSWORD_SCRIPT_PATH, { schema: { hide: true } }, async (_r, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "max-age=86400").send(PASSWORD_SCRIPT),
  );
  // The conversion script for destination sites (docs/conversions.md): on every host, loadable from any site, no cookie.
  app.get(TRACK_SCRIPT_PATH, { schema: { hide: true } }, async (_r, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=86400")
      .header("cross-origin-resource-policy", "cross-origin")
      .send(TRACK_SCRIPT),
  );
  // The icon: on every host (the public pages name it too).
  app.get("/favicon.svg", { schema: { hide: true } }, async (_r, reply) =>
    reply.type("image/svg+xml").header("cache-control", "max-age=86400").send(FAVICON_SVG),
  );
}

/**
 * The dashboard's page: the HTML policy, with images from any https address too, so that the link form can
 * show the preview card with the image the owner gave (it must be https; crawlers fetch it from there as well).
 */
export const DASHBOARD_CSP = HTML_CSP.replace("img-src 'self' data: blob:", "img-src 'self' data: blob: https:");

/** The dashboard: built files from dist/web, index.html for "/" and every /app client route. */
function registerDashboard(app: App, ctx: Pick<AppContext, "config" | "log">): void {
  const index = join(ctx.config.webDir, "index.html");
  if (!existsSync(index)) {
    ctx.log.warn({ webDir: ctx.config.webDir }, "dashboard not built (run npm run build:web); serving the API only");
    const missing = errorPage(503, {
      title: "Dashboard not built",
      heading: "The dashboard is not built yet",
      text: "The service runs, but its dashboard was not built. Whoever runs it: run npm run build:web, then restart.",
    });
    for (const path of ["/", "/app", "/app/*"])
      app.get(path, { schema: { hide: true } }, async (_r, reply) => reply.code(503).type("text/html; charset=utf-8").send(missing));
    return;
  }
  const html = readFileSync(index);
  const sendIndex = async (
    _req: unknown,
    reply: { type(t: string): { header(k: string, v: string): { header(k: string, v: string): { send(b: Buffer): unknown } } } },
  ) => reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").header("content-security-policy", DASHBOARD_CSP).send(html);
  // preCompressed: the build's .br and .gz copies of each asset (web/vite.config.ts), chosen by Accept-Encoding.
  app.register(fastifyStatic, {
    root: join(ctx.config.webDir, "assets"),
    prefix: "/assets/",
    maxAge: "1y",
    immutable: true,
    index: false,
    preCompressed: true,
    // The answer depends on Accept-Encoding: a shared cache must not hand the Brotli copy to a browser without it.
    setHeaders: (res) => res.setHeader("vary", "accept-encoding"),
  });
  for (const path of ["/", "/app", "/app/*"]) app.get(path, { schema: { hide: true } }, sendIndex);
  // The file of web/public besides the icon (served above): the script that applies the chosen theme before the first paint
  // (a file, not inline: the CSP allows scripts from 'self' only).
  for (const [file, type] of [["theme-boot.js", "text/javascript; charset=utf-8"]] as const) {
    const path = join(ctx.config.webDir, file);
    if (!existsSync(path)) continue;
    const body = readFileSync(path);
    app.get(`/${file}`, { schema: { hide: true } }, async (_r, reply) => reply.type(type).header("cache-control", "max-age=86400").send(body));
  }
}
