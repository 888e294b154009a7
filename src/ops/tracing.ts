// OpenTelemetry tracing (docs/operations.md, Traces): the SDK's tracer provider, the OTLP exporter, the
// sampler and the pg and undici instrumentations. main.ts imports this file only when an OTLP endpoint is
// configured; the spans of requests, SQLite queries, SMTP sends and webhook deliveries are trace-spans.ts's.
import { createRequire } from "node:module";
import { DiagLogLevel, diag } from "@opentelemetry/api";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-node";
import type { Logger } from "pino";
import type { TracingConfig } from "../config.js";
import type { Tracing } from "./tracing-hooks.js";
import { traceSpans } from "./trace-spans.js";
import { QuietContextManager } from "./quiet-context.js";

/** OTEL_TRACES_SAMPLER as the SDK reads it, from the validated config. */
export function samplerOf(cfg: Pick<TracingConfig, "sampler" | "samplerRatio">): Sampler {
  switch (cfg.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(cfg.samplerRatio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(cfg.samplerRatio) });
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** OTLP over HTTP, protobuf or JSON; only the exporter asked for is loaded. */
async function exporterOf(cfg: TracingConfig): Promise<SpanExporter> {
  if (cfg.protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url: cfg.url });
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url: cfg.url });
}

/** Where a webhook goes is a secret for Slack, Discord and Teams (the token is in the path): spans keep the origin. */
const REDACTED_PATH = "/REDACTED";

let started: Promise<Tracing> | null = null;

/** The SDK is process-wide (a global provider, patched modules): started once, whoever asks again gets the same. */
export function startTracing(cfg: TracingConfig, log: Logger): Promise<Tracing> {
  started ??= start(cfg, log);
  return started;
}

async function start(cfg: TracingConfig, log: Logger): Promise<Tracing> {
  // The SDK's own troubles (an unreachable collector, a refused export) as warnings in the service's log.
  const otelLog = log.child({ component: "opentelemetry" });
  diag.setLogger(
    { error: (msg) => otelLog.warn(msg), warn: (msg) => otelLog.warn(msg), info: () => undefined, debug: () => undefined, verbose: () => undefined },
    DiagLogLevel.WARN,
  );
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": cfg.serviceName }),
    sampler: samplerOf(cfg),
    spanProcessors: [new BatchSpanProcessor(await exporterOf(cfg))],
  });
  // No global propagator: an incoming traceparent is read by trace-spans.ts, and no trace context is
  // added to what snip sends (webhook receivers are third parties).
  const contexts = new QuietContextManager();
  provider.register({ propagator: null, contextManager: contexts });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Queries outside a traced request (the click writer, the change feed, housekeeping) are not traced.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        startSpanHook: (request) => ({ "url.full": `${request.origin}${REDACTED_PATH}`, "url.path": REDACTED_PATH, "url.query": "" }),
      }),
    ],
  });
  // pg was loaded before the SDK started (storage/db.ts imports it): the instrumentation's require hook
  // patches a module when it is required, so requiring it again patches its classes in place.
  const load = createRequire(import.meta.url);
  load("pg");
  createRequire(load.resolve("pg"))("pg-pool");
  return traceSpans(provider.getTracer("snip"), cfg, () => provider.forceFlush(), contexts);
}
