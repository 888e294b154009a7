// The version this server and CLI run, read from the package's package.json (the release's `npm version`),
// so /healthz, `snip --version` and the dashboard say the same.
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root, whether this file runs from src/ops/ (tsx) or dist/src/ops/ (compiled). */
function packageRoot(): string {
  const dir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
  return basename(dir) === "dist" ? dirname(dir) : dir;
}

export const SNIP_VERSION: string = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
