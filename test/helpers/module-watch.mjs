// Preloaded into a `snip serve` child (node --import): writes to the file MODULE_WATCH_LOG, one per line,
// every module the process resolves through import (ESM loader hooks, on their own thread) and, at
// exit, every file in require's cache. The traces test greps it for @opentelemetry.
import { createRequire, register } from "node:module";
import { appendFileSync } from "node:fs";

const file = process.env.MODULE_WATCH_LOG;
if (!file) throw new Error("module-watch.mjs: MODULE_WATCH_LOG is not set");
const hooks = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(file, "import " + r.url + "\\n");
  return r;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file } });
const cache = createRequire(import.meta.url).cache;
process.on("exit", () =>
  appendFileSync(
    file,
    Object.keys(cache)
      .map((f) => `require ${f}\n`)
      .join(""),
  ),
);
