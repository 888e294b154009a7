// Benchmarks that serve a seeded database from a snip server in a child process, once per engine: a
// data dir and (PostgreSQL) a database of their own for each run, removed after it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../../test/helpers/engines.js";
import { killAll, type ServerChild, startChild } from "./children.js";

export type BenchEngine = "sqlite" | "postgres";

const SNIP_SERVER = fileURLToPath(new URL("../snip-server.ts", import.meta.url));

/** SQLite, and PostgreSQL too when TEST_DATABASE_URL is set. */
export function benchEngines(): BenchEngine[] {
  return process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
}

/**
 * Runs `run` for each engine with the env a snip server (and createContext) needs for its own data dir
 * and database; true when every run returned true.
 */
export async function forEachEngine(
  name: string,
  engines: BenchEngine[],
  run: (engine: BenchEngine, env: Record<string, string>) => Promise<boolean>,
): Promise<boolean> {
  process.on("exit", killAll);
  let allOk = true;
  for (const engine of engines) {
    const dataDir = mkdtempSync(join(tmpdir(), `snip-bench-${name}-`));
    const testDb = engine === "postgres" ? await createTestDatabase("postgres") : null;
    const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent", PORT: "0", HOST: "127.0.0.1", ...(testDb?.databaseUrl ? { DATABASE_URL: testDb.databaseUrl } : {}) };
    try {
      allOk = (await run(engine, env)) && allOk;
    } finally {
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return allOk;
}

/** `fn` with a snip server (bench/snip-server.ts) running on `env` in a child process, stopped after. */
export async function withSnipServer<T>(env: Record<string, string>, fn: (server: ServerChild) => Promise<T>): Promise<T> {
  const server = await startChild({ name: "snip", script: SNIP_SERVER, env });
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}
