// A small OTLP/HTTP trace receiver on loopback: takes POST /v1/traces in JSON (OTEL_EXPORTER_OTLP_PROTOCOL=
// http/json) and flattens the spans; a protobuf body is kept as it came (the exporter offers no decoder).
import { type IncomingHttpHeaders, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "./wait.js";

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };

export interface ReceivedSpan {
  name: string;
  /** SPAN_KIND_*: 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
  /** STATUS_CODE_*: 0 unset, 1 ok, 2 error. */
  status: number;
  service: string;
  scope: string;
  startNs: bigint;
  endNs: bigint;
}

export interface OtlpPost {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT names (the exporter adds /v1/traces). */
  endpoint: string;
  posts: OtlpPost[];
  spans: ReceivedSpan[];
  /** Resolves with the first span `match` accepts once it has arrived. */
  span(match: (s: ReceivedSpan) => boolean, what: string): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? "";
}

type KeyValue = { key: string; value: AnyValue };
type JsonSpan = {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: KeyValue[];
  status?: { code?: number };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
};
type JsonRequest = { resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { scope: { name: string }; spans: JsonSpan[] }[] }[] };

function flatten(req: JsonRequest): ReceivedSpan[] {
  return req.resourceSpans.flatMap((rs) => {
    const service = String(valueOf(rs.resource.attributes.find((a) => a.key === "service.name")?.value ?? {}));
    return rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        name: s.name,
        kind: s.kind,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
        status: s.status?.code ?? 0,
        service,
        scope: ss.scope.name,
        startNs: BigInt(s.startTimeUnixNano),
        endNs: BigInt(s.endTimeUnixNano),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const posts: OtlpPost[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      posts.push({ path: req.url ?? "", headers: req.headers, body });
      const json = req.headers["content-type"]?.startsWith("application/json") === true;
      if (json) spans.push(...flatten(JSON.parse(body.toString("utf8")) as JsonRequest));
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    posts,
    spans,
    span: (match, what) => waitFor(() => spans.find(match), { what, timeoutMs: 15_000 }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
