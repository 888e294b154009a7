// Issue 42: tracing at 1 % sampling must not make every request pay AsyncLocalStorage's hooks. A request
// the sampler leaves out never enters the storage; a sampled one does, its work sees its span, and once
// no sampled work is left the storage is switched off again.
import { createServer, request, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Context, context, SamplingDecision, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { QuietContextManager } from "../../src/ops/quiet-context.js";
import { traceSpans } from "../../src/ops/trace-spans.js";

/** Samples the requests whose path says so. */
const bySampledPath = {
  shouldSample: (_c: Context, _t: string, _n: string, _k: unknown, attrs: Record<string, unknown>) => ({
    decision: String(attrs["url.path"] ?? "").startsWith("/sampled") ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
  }),
  toString: () => "by path",
};

describe("tracing's context: AsyncLocalStorage only for sampled work", () => {
  const exporter = new InMemorySpanExporter();
  const contexts = new QuietContextManager();
  const provider = new NodeTracerProvider({ sampler: bySampledPath, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: Server;
  let url = "";
  /** What each request's handler saw, after an await: the active span's name (null: none). */
  const seen = new Map<string, string | null>();

  beforeAll(async () => {
    provider.register({ propagator: null, contextManager: contexts });
    const tracing = traceSpans(provider.getTracer("t"), { redirectRatio: 0 }, async () => undefined, contexts);
    server = createServer(
      tracing.serve(
        () => false,
        (req, res) => {
          const path = req.url ?? "";
          tracing.routed(req, path);
          void new Promise((r) => setTimeout(r, 5)).then(() => {
            const span = trace.getSpan(context.active());
            seen.set(path, span && "name" in span ? String(span.name) : null);
            res.end("ok");
          });
        },
      ),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await provider.shutdown();
    context.disable();
  });

  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      request(url + path, { agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
        .on("error", reject)
        .end();
    });

  it("an unsampled request finds no context and records nothing; the storage stays off", async () => {
    expect(await get("/plain-1")).toBe(200);
    expect(seen.get("/plain-1")).toBeNull();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(contexts.quieted).toBe(0);
  });

  it("a sampled request's work sees its span; once it is answered the storage is switched off again", async () => {
    expect(await get("/sampled-1")).toBe(200);
    expect(seen.get("/sampled-1")).toBe("GET /sampled-1");
    await new Promise((r) => setTimeout(r, 20));
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["GET /sampled-1"]);
    expect(contexts.quieted).toBe(1);
    // A timer armed inside the sampled request, firing after it: no stale span.
    expect(contexts.entered).toBe(false);
  });

  it("sampled and unsampled requests at once: each sees its own (the unsampled none), the storage off after the last", async () => {
    const paths = ["/sampled-2", "/plain-2", "/sampled-3", "/plain-3", "/plain-4"];
    expect(await Promise.all(paths.map(get))).toEqual([200, 200, 200, 200, 200]);
    expect(seen.get("/sampled-2")).toBe("GET /sampled-2");
    expect(seen.get("/sampled-3")).toBe("GET /sampled-3");
    for (const p of ["/plain-2", "/plain-3", "/plain-4"]) expect(seen.get(p)).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(contexts.quieted).toBeGreaterThanOrEqual(2);
    expect(contexts.entered).toBe(false);
  });
});
