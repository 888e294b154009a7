// Starts `snip serve` as a real process (the compiled dist/src/cli.js) and resolves when it logs that it is
// listening: no polling budget, so a machine slowed by parallel work only makes it later, never fails it.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort } from "./server.js";
import { cliArgv } from "./built.js";

const root = join(import.meta.dirname, "..", "..");

export interface Serve {
  child: ChildProcess;
  port: number;
  url: string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything the process wrote to stdout so far (its JSON log lines). */
  stdout(): string;
}

/**
 * `env` is the whole environment besides PATH, PORT and BASE_URL (LOG_LEVEL must let "snip is
 * listening" through: info or more verbose); `preload` modules are imported first (node --import);
 * `listening` is the text that says so (another for LOG_FORMAT=pretty).
 */
export async function spawnServe(env: Record<string, string>, preload: string[] = [], listening = '"msg":"snip is listening"'): Promise<Serve> {
  // A free port can be taken by a parallel test file between freePort() and the child's listen: another port then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(env, preload, listening);
    } catch (err) {
      if (attempt === 3 || !(err instanceof Error) || !err.message.includes("EADDRINUSE")) throw err;
    }
  }
}

async function spawnOnce(env: Record<string, string>, preload: string[], listening: string): Promise<Serve> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const imports = preload.flatMap((p) => ["--import", pathToFileURL(p).href]);
  const child = spawn(process.execPath, cliArgv(["serve"], imports), {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", PORT: String(port), BASE_URL: url, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (!out.includes(listening)) return;
      child.stdout?.off("data", onData);
      resolve();
    };
    child.stdout?.on("data", onData);
    void exited.then((code) => reject(new Error(`snip serve exited (${code}) before it was listening: ${err || out}`)));
  });
  return { child, port, url, exited, stdout: () => out };
}
