// Development and test side of the worker threads (click writer, QR codes): runs a worker's TypeScript source
// as one esbuild bundle. Loading it through tsx resolved and transformed each module through a hooks thread
// of the worker's own: about a second of CPU per worker, and the tests start hundreds of servers. The
// compiled build (dist/) loads its .js files directly and never reaches this file.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { threadId } from "node:worker_threads";

// Under node_modules, so that the bundle's package imports resolve as the sources' do (and npm ci clears the
// bundles of sources edited since; a few hundred KB each).
const CACHE_DIR = fileURLToPath(new URL("../../node_modules/.cache/snip-workers/", import.meta.url));

/** Bundles the entry (packages left as imports) and imports the bundle, kept under its content's hash. */
export async function importBundled(entry) {
  const out = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0].text;
  const file = join(CACHE_DIR, `${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}-${threadId}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  await import(pathToFileURL(file).href);
}
