// Starts a real snip server on a free loopback port, on a temporary SQLite file or PostgreSQL database.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/main.js";
import type { ContextOverrides } from "../../src/context.js";
import { copyMigratedSqlite, createTestDatabase, type EngineName } from "./engines.js";

export interface TestServer extends RunningServer {
  config: Readonly<Config>;
  dataDir: string;
  outboxDir: string;
  databaseUrl: string | undefined;
  /** Stops the server and removes what it created (database, data dir) unless kept. */
  close(): Promise<void>;
}

export interface TestServerOptions extends ContextOverrides {
  engine?: EngineName;
  /** Reuse an existing database (a second instance, or a restart): it is then not dropped. */
  databaseUrl?: string;
  /** Reuse a data dir: it is then not removed. */
  dataDir?: string;
  env?: Record<string, string>;
}

/**
 * The configuration of a test server: LINK_CHECKS off unless the test turns it on (a test's destinations are names on
 * the public internet, which tests never reach; test/api/link-health.test.ts checks loopback receivers with it on).
 */
export function testConfig(env: Record<string, string | undefined>): Readonly<Config> {
  return loadConfig({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", LINK_CHECKS: "off", ...env });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const ownsDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "snip-test-"));
  const engine = opts.engine ?? "sqlite";
  // A new database starts as a copy of the run's migrated one (test/helpers/template-databases.ts); a database or
  // directory handed in, or a DATABASE_URL of the test's own, is left as it is.
  const fresh = opts.databaseUrl === undefined && opts.env?.DATABASE_URL === undefined;
  const db = opts.databaseUrl === undefined ? await createTestDatabase(engine, { migrated: fresh }) : null;
  if (fresh && engine === "sqlite" && ownsDir) copyMigratedSqlite(dataDir);
  const databaseUrl = opts.databaseUrl ?? db?.databaseUrl;
  const port = await freePort();
  const config = testConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, ...opts.env });
  const server = await startServer(config, opts);
  let closed: Promise<void> | null = null;
  return {
    ...server,
    config,
    dataDir,
    outboxDir: join(dataDir, "outbox"),
    databaseUrl,
    close() {
      closed ??= (async () => {
        await server.stop();
        await db?.drop();
        if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}
