// What the server asks of tracing. src/ops/tracing.ts builds it, and main.ts imports that file only when
// an OTLP endpoint is configured: with tracing off no OpenTelemetry module is loaded and nothing here runs.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger as QueryLogger } from "kysely";
import type { Mailer } from "../mail/mailer.js";
import type { SenderOptions } from "../webhooks/send.js";

/** The fast path (http/fast-redirect.ts): true when it took the request; `route` hands one it took back to Fastify. */
export type FastListener = (req: IncomingMessage, res: ServerResponse, route: RequestListener) => boolean;

export interface Tracing {
  /**
   * The server's request listener: a request the fast path takes (`fast` returns true) gets a span one
   * time in OTEL_REDIRECT_SAMPLE_RATIO, after it answered; every other one a server span, active while
   * Fastify (`next`) works on it.
   */
  serve(fast: FastListener, next: RequestListener): RequestListener;
  /** Fastify found the request's route (undefined: none): its span is named after the route's template. */
  routed(req: IncomingMessage, route: string | undefined): void;
  /** Kysely's log hook on SQLite: a span per query run inside a traced request (pg has its instrumentation). */
  sqliteQueries: QueryLogger;
  /** The SMTP transport with a client span per message. */
  smtp(mailer: Mailer, smtpUrl: string): Mailer;
  /** A span per webhook delivery, around the POST that undici's instrumentation traces. */
  webhookDelivery: NonNullable<SenderOptions["observe"]>;
  /** Exports the spans still buffered (shutdown). */
  flush(): Promise<void>;
}
