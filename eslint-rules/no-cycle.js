// Lint rule house/no-cycle: no import cycle between the project's files, type-only imports included
// (import-x/no-cycle skips `import type` by design, yet a type cycle ties files together as much).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";

/** Each file's relative imports, resolved to files, cached while the file's mtime stays the same. */
const cache = new Map();

/** The file a relative specifier names ("./x.js" is the TypeScript source "./x.ts"), or null for a package. */
export function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs)$/, "");
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${base}.ts`, `${base}.tsx`, resolve(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The project files `file` imports (relative specifiers only), read again only when the file changed. */
export function importsOf(file) {
  let mtime;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit && hit.mtime === mtime) return hit.imports;
  // preProcessFile lists every module a file names: import, import type, export ... from, import().
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const imports = [...new Set(info.importedFiles.map((i) => resolveSpecifier(file, i.fileName)).filter((f) => f !== null))];
  cache.set(file, { mtime, imports });
  return imports;
}

/** The shortest chain from `start` to `goal` (both included) along `next` (a node's neighbours), or null when there is none. */
export function shortestChain(start, goal, next) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    if (node === goal) {
      const chain = [];
      for (let n = node; n !== null; n = previous.get(n)) chain.unshift(n);
      return chain;
    }
    for (const following of next(node)) {
      if (!previous.has(following)) {
        previous.set(following, node);
        queue.push(following);
      }
    }
  }
  return null;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "Forbid import cycles between the project's files, type-only imports included." },
    schema: [],
    messages: { cycle: "Import cycle (type-only imports count): {{chain}}." },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!/\.tsx?$/.test(file)) return {};
    const root = context.cwd;
    const check = (node) => {
      if (node.source === null || node.source === undefined || typeof node.source.value !== "string") return;
      const target = resolveSpecifier(file, node.source.value);
      if (target === null || target === file) return;
      const chain = shortestChain(target, file, importsOf);
      if (chain === null) return;
      const names = [file, ...chain].map((f) => relative(root, f));
      context.report({ node, messageId: "cycle", data: { chain: names.join(" -> ") } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
