// The spans snip makes itself (docs/operations.md, Traces): one per HTTP request (the fast path's sampled),
// per SQLite query inside a request, per SMTP send and per webhook delivery. Attribute names follow
// OpenTelemetry's stable semantic conventions; no client address, query string or SQL parameter is recorded.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  defaultTextMapGetter,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { LogEvent } from "kysely";
import type { TracingConfig } from "../config.js";
import type { FastListener, Tracing } from "./tracing-hooks.js";
import type { QuietContextManager } from "./quiet-context.js";

/** Polled by load balancers and scrapers many times a minute: no trace says anything about them. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);
/** The fast path's route, as the router's redirect route is declared (http/routes/redirect.ts). */
const REDIRECT_ROUTE = "/:alias";

const propagator = new W3CTraceContextPropagator();

/** A caller's trace (an incoming traceparent header) or none. */
function parentOf(req: IncomingMessage): Context {
  return propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
}

function requestAttributes(req: IncomingMessage, path: string): Attributes {
  const host = req.headers.host ?? "";
  const attributes: Attributes = {
    "http.request.method": req.method ?? "",
    "url.path": path,
    "url.scheme": (req.socket as TLSSocket).encrypted ? "https" : "http",
    "server.address": (/^(\[[^\]]*\]|[^:]*)/.exec(host)?.[1] ?? host).toLowerCase(),
    "network.protocol.version": req.httpVersion,
  };
  const ua = req.headers["user-agent"];
  if (ua) attributes["user_agent.original"] = ua.slice(0, 256);
  return attributes;
}

/** Ends the span when the answer is sent, or when the connection closed before it was. */
function endWithResponse(span: Span, res: ServerResponse): void {
  res.once("close", () => {
    const status = res.statusCode;
    span.setAttribute("http.response.status_code", status);
    if (!res.writableFinished) span.setAttribute("error.type", "aborted");
    if (status >= 500) {
      span.setAttribute("error.type", String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    // A performance timestamp, like the start (`arrived`): the SDK puts both on the span's Date-anchored
    // clock, the one its children start on. An epoch time here or at the start mixed the two clocks (a
    // fast redirect's span once had no duration; a child once started before its request).
    span.end(performance.now());
  });
}

function queryOperation(sql: string): string {
  const word = /^\s*([A-Za-z]+)/.exec(sql)?.[1];
  return word ? word.toUpperCase() : "QUERY";
}

function recordFailure(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

// eslint-disable-next-line max-lines-per-function -- the hooks share the tracer and the request spans; each is a few lines
export function traceSpans(
  tracer: Tracer,
  cfg: Pick<TracingConfig, "redirectRatio">,
  flush: () => Promise<void>,
  contexts: Pick<QuietContextManager, "hold">,
): Tracing {
  const requestSpans = new WeakMap<IncomingMessage, Span>();
  const ratio = cfg.redirectRatio;

  /** A redirect the fast path answered, chosen by the ratio: a span from when it arrived. */
  const fastSpan = (req: IncomingMessage, res: ServerResponse, arrived: number) => {
    const path = (req.url ?? "").split("?", 1)[0] ?? "";
    const attributes = { ...requestAttributes(req, path), "http.route": REDIRECT_ROUTE, "snip.fast_path": true };
    const span = tracer.startSpan(`${req.method} ${REDIRECT_ROUTE}`, { kind: SpanKind.SERVER, startTime: arrived, attributes }, parentOf(req));
    endWithResponse(span, res);
  };

  const serve = (fast: FastListener, next: RequestListener): RequestListener => {
    return (req, res) => {
      // A performance timestamp (see endWithResponse).
      const arrived = performance.now();
      // A request the fast path took and handed back (a click limit used up) keeps the fast span, if any.
      if (fast(req, res, next)) {
        if (ratio > 0 && Math.random() < ratio) fastSpan(req, res, arrived);
        return;
      }
      const path = (req.url ?? "").split("?", 1)[0] ?? "";
      if (UNTRACED_PATHS.has(path)) return next(req, res);
      const parent = parentOf(req);
      const span = tracer.startSpan(req.method ?? "HTTP", { kind: SpanKind.SERVER, startTime: arrived, attributes: requestAttributes(req, path) }, parent);
      // Left out by the sampler: nothing to record, and no AsyncLocalStorage entered (quiet-context.ts).
      if (!span.isRecording()) return next(req, res);
      requestSpans.set(req, span);
      endWithResponse(span, res);
      res.once("close", contexts.hold());
      // Active while Fastify works on the request: it keeps the async context across the body's reads itself.
      context.with(trace.setSpan(parent, span), () => next(req, res));
    };
  };

  const routed = (req: IncomingMessage, route: string | undefined) => {
    const span = requestSpans.get(req);
    if (span === undefined || route === undefined) return;
    span.updateName(`${req.method} ${route}`);
    span.setAttribute("http.route", route);
  };

  const sqliteQueries = (event: LogEvent) => {
    const parent = context.active();
    if (trace.getSpan(parent)?.isRecording() !== true) return;
    const ended = performance.timeOrigin + performance.now();
    const text = event.query.sql;
    const operation = queryOperation(text);
    const attributes = { "db.system.name": "sqlite", "db.operation.name": operation, "db.query.text": text };
    const span = tracer.startSpan(`sqlite.query:${operation}`, { kind: SpanKind.CLIENT, startTime: ended - event.queryDurationMillis, attributes }, parent);
    if (event.level === "error") recordFailure(span, event.error);
    span.end(ended);
  };

  const smtp: Tracing["smtp"] = (mailer, smtpUrl) => {
    const u = new URL(smtpUrl);
    const port = Number(u.port) || (u.protocol === "smtps:" ? 465 : 587);
    const attributes = { "server.address": u.hostname, "server.port": port, "network.protocol.name": "smtp" };
    return {
      send: (message) =>
        tracer.startActiveSpan("smtp send", { kind: SpanKind.CLIENT, attributes }, async (span) => {
          try {
            await mailer.send(message);
          } catch (err) {
            recordFailure(span, err);
            throw err;
          } finally {
            span.end();
          }
        }),
      close: () => mailer.close(),
    };
  };

  const webhookDelivery: Tracing["webhookDelivery"] = (target, event, deliver) => {
    const attributes = {
      "snip.webhook.id": target.id,
      "snip.webhook.kind": target.kind,
      "snip.webhook.event": event.type,
      "snip.webhook.delivery_id": event.id,
      "snip.webhook.test": event.test,
    };
    // A test delivery answers its request (a child of it); a click's runs from the queue: a trace of its own.
    const parent = event.test ? context.active() : ROOT_CONTEXT;
    return tracer.startActiveSpan("webhook delivery", { kind: SpanKind.INTERNAL, attributes }, parent, async (span) => {
      try {
        const result = await deliver();
        if (result.status_code !== null) span.setAttribute("http.response.status_code", result.status_code);
        if (result.error !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
        return result;
      } finally {
        span.end();
      }
    });
  };

  return { serve, routed, sqliteQueries, smtp, webhookDelivery, flush };
}
