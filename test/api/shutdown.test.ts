// `snip serve` as a real process: serves, then exits cleanly on SIGTERM and SIGINT.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../helpers/server.js";

const root = join(import.meta.dirname, "..", "..");

async function serveAndStop(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "src", "cli.ts"), "serve"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: mkdtempSync(join(tmpdir(), "snip-sig-")), PORT: String(port), LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  child.kill(signal);
  return { code: await exited, stdout };
}

it.each(["SIGTERM", "SIGINT"] as const)("exits 0 on %s after logging the shutdown", async (signal) => {
  const { code, stdout } = await serveAndStop(signal);
  expect(code).toBe(0);
  expect(stdout).toContain('"msg":"snip is listening"');
  expect(stdout).toContain(`"signal":"${signal}"`);
});
