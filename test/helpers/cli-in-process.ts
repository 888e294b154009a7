// The CLI run inside the test's process against a test server (cli.ts runs it as a real process): the server's
// configuration in process.env for the run, stdout and stderr captured, the environment restored after.
import { vi } from "vitest";
import { runCli } from "../../src/cli.js";
import type { TestServer } from "./server.js";

/** Runs `snip <args>` with the server's DATA_DIR, DATABASE_URL and BASE_URL; returns exit code and output. */
export async function cliInProcess(server: TestServer, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const saved = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL, BASE_URL: process.env.BASE_URL };
  process.env.DATA_DIR = server.dataDir;
  // vitest sets BASE_URL="/" (Vite's); snip reads it as the public origin.
  process.env.BASE_URL = server.config.origin;
  if (server.databaseUrl) process.env.DATABASE_URL = server.databaseUrl;
  else delete process.env.DATABASE_URL;
  process.env.LOG_LEVEL = "silent";
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    return { code: await runCli(args), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
