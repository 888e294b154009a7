// vitest globalSetup: compiles src/ into dist/ (`npm run build:server`, incremental: seconds when nothing
// changed) before any test runs, so tests that start `snip` as a process run the built CLI, as an operator
// does, instead of paying tsx's loader and the development workers' bundling in every process.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root, stdio: "inherit" });
}
