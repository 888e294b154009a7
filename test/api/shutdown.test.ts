// `snip serve` as a real process: serves, then exits cleanly on SIGTERM and SIGINT.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { spawnServe } from "../helpers/serve.js";

async function serveAndStop(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string }> {
  // Awaited on its "listening" line: a start slowed by a busy machine is late, not failed.
  const s = await spawnServe({ DATA_DIR: mkdtempSync(join(tmpdir(), "snip-sig-")), LOG_LEVEL: "info" });
  expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  s.child.kill(signal);
  const code = await s.exited;
  return { code, stdout: s.stdout() };
}

it.each(["SIGTERM", "SIGINT"] as const)("exits 0 on %s after logging the shutdown", { timeout: 300_000 }, async (signal) => {
  const { code, stdout } = await serveAndStop(signal);
  expect(code).toBe(0);
  expect(stdout).toContain('"msg":"snip is listening"');
  expect(stdout).toContain(`"signal":"${signal}"`);
});
