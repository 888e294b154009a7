// Runs the `snip` CLI as a real process (through tsx) with a clean environment.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

export function snip(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "src", "cli.ts"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
