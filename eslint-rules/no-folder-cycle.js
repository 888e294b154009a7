// Lint rule house/no-folder-cycle: no import cycle between the places of src/ and web/src/ (a folder, or a file
// directly in the root), type-only imports included. house/no-cycle sees files: clicks/a.ts -> streams/b.ts and
// streams/c.ts -> clicks/d.ts is no file cycle, yet it ties the two folders together so that neither can be
// understood, tested or moved without the other. A cycle is reported once, at the first import of its
// alphabetically first place, with one import for each of its arrows.
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { importsOf, resolveSpecifier, shortestChain } from "./no-cycle.js";
import { placeOf } from "./layer-map.js";

/** The folders under `dir` with their mtimes (a file added, removed or renamed changes its folder's), and its files. */
function scan(dir, dirs = new Map(), files = []) {
  let entries;
  try {
    dirs.set(dir, statSync(dir).mtimeMs);
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return { dirs, files };
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) scan(path, dirs, files);
    else if (/\.tsx?$/.test(entry.name)) files.push(path);
  }
  return { dirs, files };
}

function changed(dirs) {
  for (const [dir, mtime] of dirs) {
    try {
      if (statSync(dir).mtimeMs !== mtime) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * The arrows between places: for each place, the places it imports, each with the import that shows it (the
 * alphabetically first file, and its first target there).
 */
function placeGraph(cwd, roots, imports) {
  const graph = new Map();
  for (const file of [...imports.keys()].sort()) {
    const from = placeOf(cwd, file, roots).label;
    for (const target of imports.get(file)) {
      const to = placeOf(cwd, target, roots)?.label;
      if (to === undefined || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const arrows = graph.get(from);
      const shown = arrows.get(to);
      if (shown === undefined || (shown.file === file && target < shown.target)) arrows.set(to, { file, target });
    }
  }
  return graph;
}

/**
 * Per root (src/, web/src/: one's places never import the other's and back, so a cycle stays within a root):
 * its folders, each file's imports (no-cycle's cache: one parse for both rules), and the graph.
 */
const states = new Map();

/**
 * The graph as the files are now, built once per lint run: read again when a folder changed (a file came or went),
 * and when the file being linted imports other files than it did (an edit in an editor's long-lived ESLint).
 */
function graphFor(cwd, root, file) {
  const key = resolve(cwd, root);
  let state = states.get(key);
  if (state === undefined || changed(state.dirs)) {
    const { dirs, files } = scan(key);
    const imports = new Map(files.map((path) => [path, importsOf(path)]));
    state = { dirs, imports, graph: null };
    states.set(key, state);
  }
  const own = importsOf(file);
  if (state.imports.get(file) !== own) {
    state.imports.set(file, own);
    state.graph = null;
  }
  state.graph ??= placeGraph(cwd, [root], state.imports);
  return state.graph;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "Forbid import cycles between the folders (and top-level files) of src/ and web/src/." },
    // The roots, then { base }: the folder they are in (eslint.config.js's), else the folder lint was started in.
    schema: [
      { type: "array", items: { type: "string" } },
      { type: "object", properties: { base: { type: "string" } }, additionalProperties: false },
    ],
    messages: { cycle: "Folder cycle (type-only imports count): {{chain}} ({{imports}})." },
  },
  create(context) {
    const cwd = context.options[1]?.base ?? context.cwd;
    const roots = context.options[0] ?? ["src"];
    const file = context.physicalFilename;
    const here = placeOf(cwd, file, roots);
    if (here === null || !/\.tsx?$/.test(file)) return {};
    let graph = null;
    const reported = new Set();
    const check = (node) => {
      if (node.source === null || node.source === undefined || typeof node.source.value !== "string") return;
      const target = resolveSpecifier(file, node.source.value);
      const there = target === null ? undefined : placeOf(cwd, target, [here.root])?.label;
      if (there === undefined || there === here.label || reported.has(there)) return;
      graph ??= graphFor(cwd, here.root, file);
      const shown = graph.get(here.label)?.get(there);
      if (shown === undefined || shown.file !== file || shown.target !== target) return;
      const back = shortestChain(there, here.label, (place) => graph.get(place)?.keys() ?? []);
      if (back === null || back.some((place) => place < here.label)) return;
      reported.add(there);
      const chain = [here.label, ...back];
      const imports = chain.slice(1).map((to, i) => {
        const arrow = graph.get(chain[i]).get(to);
        return `${relative(cwd, arrow.file)} imports ${relative(cwd, arrow.target)}`;
      });
      context.report({ node, messageId: "cycle", data: { chain: chain.join(" -> "), imports: imports.join("; ") } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
