// Runs the `snip` CLI as a real process (the compiled dist/src/cli.js) with exactly the environment given.
import { execFile, spawnSync } from "node:child_process";
import { join } from "node:path";
import { cliArgv } from "./built.js";

const root = join(import.meta.dirname, "..", "..");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const argv = (args: string[]) => cliArgv(args);
const options = (env: Record<string, string>) => ({
  cwd: root,
  env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
  encoding: "utf8" as const,
  timeout: 60_000,
});

export function snip(args: string[], env: Record<string, string>): CliResult {
  const r = spawnSync(process.execPath, argv(args), options(env));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same without blocking this process (when the test also serves something the command uses, e.g. DNS). */
export function snipAsync(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, argv(args), options(env), (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
