// Entry: config -> context -> HTTP server, with graceful shutdown on SIGTERM/SIGINT.
import type { Config } from "./config.js";
import { createContext, type AppContext, type ContextOverrides } from "./context.js";
import { buildApp, type App } from "./http/app.js";

export interface RunningServer {
  app: App;
  ctx: AppContext;
  url: string;
  /** Stops accepting requests, drains, flushes buffered clicks and closes the database. */
  stop(): Promise<void>;
}

export async function startServer(config: Readonly<Config>, overrides: ContextOverrides = {}): Promise<RunningServer> {
  const ctx = await createContext(config, { clickJournal: config.clickJournal, ...overrides });
  let app: App;
  try {
    app = await buildApp(ctx);
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await ctx.close();
    throw err;
  }
  // Verified custom domains are checked again in the background (each check claimed by one instance).
  ctx.domains.start();
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
        await app.close();
        await ctx.close();
      })();
      return stopping;
    },
  };
}

/** Runs until SIGTERM/SIGINT, then shuts down cleanly (no buffered click is lost). */
export async function serveForever(config: Readonly<Config>): Promise<void> {
  const server = await startServer(config);
  server.ctx.log.info({ url: server.url, baseUrl: config.origin, database: server.ctx.storage.dialect }, "snip is listening");
  const shutdown = (signal: string) => {
    server.ctx.log.info({ signal }, "shutting down");
    const timer = setTimeout(() => process.exit(1), 15_000);
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
}
