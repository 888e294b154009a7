// Entry: config -> context -> HTTP server, with graceful shutdown on SIGTERM/SIGINT.
import type { Config } from "./config.js";
import { createContext, type AppContext, type ContextOverrides } from "./context.js";
import { createLogger } from "./ops/logging.js";
import { keepTickShape } from "./ops/tick-shape.js";
import { noPretenuring } from "./ops/no-pretenuring.js";
import { buildApp, type App } from "./http/app.js";
import type { Tracing } from "./ops/tracing-hooks.js";

export interface RunningServer {
  app: App;
  ctx: AppContext;
  url: string;
  /** Stops accepting requests, drains, flushes buffered clicks and closes the database. */
  stop(): Promise<void>;
}

/**
 * OpenTelemetry, when configured: imported here and only then, so that with tracing off not one of its
 * modules is loaded. Started before the context: its spans wrap the database, SMTP and webhooks.
 */
async function withTracing(config: Readonly<Config>, overrides: ContextOverrides): Promise<ContextOverrides & { tracing: Tracing | null }> {
  if (config.tracing === null) return { ...overrides, tracing: null };
  const log = overrides.log ?? createLogger(config);
  const { startTracing } = await import("./ops/tracing.js");
  return { ...overrides, log, tracing: await startTracing(config.tracing, log) };
}

export async function startServer(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<RunningServer> {
  noPretenuring();
  keepTickShape();
  const traced = await withTracing(config, overrides);
  const ctx = await createContext(config, { clickJournal: config.clickJournal, ...traced });
  let app: App;
  try {
    // What the first request needs is loaded before the server listens (webhook subscriptions, custom
    // hosts, the blocklist, the stream publisher; journaled clicks replayed).
    await ctx.start();
    app = await buildApp(ctx);
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await ctx.close();
    throw err;
  }
  keepTickShape();
  // Once listening, the work each instance claims: custom and SSO domains checked again, emails the
  // transport did not accept retried, import jobs (queued, or left by a stopped instance) continued.
  ctx.run();
  ctx.readiness.state = "ready";
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let stopping: Promise<void> | null = null;
  return {
    app,
    ctx,
    url: `http://${host}:${port}`,
    stop() {
      stopping ??= (async () => {
        // A load balancer polling /readyz sees 503 from here and stops sending new requests during the
        // delay, while those already on their way are still answered.
        ctx.readiness.state = "draining";
        if (config.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
        await app.close();
        await ctx.close();
        await traced.tracing?.flush();
      })();
      return stopping;
    },
  };
}

/** What a server says once it listens: the log line (a single process), or a message to its primary (WORKERS=N). */
export type Announce = (server: RunningServer) => void;

const announceListening: Announce = (server) => {
  // BASE_URL first: it is the address short links carry; the socket's address (any Host reaches the main host) second.
  server.ctx.log.info({ baseUrl: server.ctx.config.origin, listening: server.url, database: server.ctx.storage.dialect }, "snip is listening");
};

/** Runs until SIGTERM/SIGINT, then shuts down cleanly (no buffered click is lost). */
export async function serveForever(config: Readonly<Config>, overrides: ContextOverrides = {}, announce: Announce = announceListening): Promise<void> {
  const server = await startServer(config, overrides);
  const shutdown = (signal: string) => {
    server.ctx.log.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 15_000 + config.drainDelayMs);
    timer.unref();
    server
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        server.ctx.log.error({ err }, "shutdown failed");
        process.exit(1);
      });
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  // Announced once a signal would be handled: whoever waits for this may stop the process at once.
  announce(server);
}
