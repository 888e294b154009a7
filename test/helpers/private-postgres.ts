// A PostgreSQL server of the test's own (initdb into a temporary folder, a free port) that the test may
// stop and start again: the shared server on 5432 is never touched.
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./server.js";

const run = promisify(execFile);
const ROOT = "/usr/lib/postgresql";

/** The newest installed server's bin folder, or null. */
function binDir(): string | null {
  if (!existsSync(ROOT)) return null;
  const versions = readdirSync(ROOT)
    .filter((v) => existsSync(join(ROOT, v, "bin", "initdb")) && existsSync(join(ROOT, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(ROOT, versions[0], "bin");
}

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user. */
function asUser(): { uid: number; gid: number } | null | "missing" {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    return { uid, gid };
  } catch {
    return "missing";
  }
}

/** Why a private server cannot run here, or null when it can. */
export function privatePostgresUnavailable(): string | null {
  if (binDir() === null) return `no PostgreSQL server binaries (initdb, pg_ctl) under ${ROOT}`;
  if (asUser() === "missing") return "running as root and there is no postgres user to run the server as";
  return null;
}

export interface PrivatePostgres {
  /** A URL of the database `snip` on it. */
  url: string;
  /** Stops the server (fast shutdown: sessions are ended, as in a restart or failover). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it if running and removes its files. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = asUser();
  if (bin === null || user === "missing") throw new Error(privatePostgresUnavailable() ?? "no private PostgreSQL");
  const dir = mkdtempSync(join(tmpdir(), "snip-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const port = await freePort();
  const tool = (name: string, args: string[]) => (user ? run("runuser", ["-u", "postgres", "--", join(bin, name), ...args]) : run(join(bin, name), args));
  // Durability is not what is tested: no fsync keeps start and stop quick on a shared machine.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  const start = async () => {
    await tool("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  };
  await tool("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  await start();
  let running = true;
  const base = `postgres://postgres@127.0.0.1:${port}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE snip");
  await admin.end();
  return {
    url: `${base}/snip`,
    async stop() {
      await tool("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
