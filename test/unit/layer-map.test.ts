// The layer map of eslint.config.js as lint applies it: a copy of what lint reads (src/, web/src/, the config,
// its rules, the tsconfig files) in a temporary folder, probe files written into it, and ESLint's Node API
// run on the probes only (lint of the whole tree is `npm run lint`'s).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ESLint } from "eslint";

const ROOT = resolve(import.meta.dirname, "../..");
const COPIED = ["src", "web/src", "eslint.config.js", "eslint-rules", "tsconfig.json", "tsconfig.build.json", "web/tsconfig.json", "package.json"];

function copyOfTheTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "snip-layers-"));
  for (const path of COPIED) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Each linted file (relative) with its problems as "rule: message". */
async function lint(eslint: ESLint, dir: string, files: string[]): Promise<Record<string, string[]>> {
  const results = await eslint.lintFiles(files);
  return Object.fromEntries(results.map((r) => [r.filePath.slice(dir.length + 1), r.messages.map((m) => `${m.ruleId}: ${m.message}`)]));
}

const UNPLACED = (label: string, lists: string) =>
  `house/layer-map: ${label} has no place in the layer map: give it a layer in eslint.config.js (${lists}), so lint checks its imports.`;
const ZONE = (path: string, note: string) => `import-x/no-restricted-paths: Unexpected path "${path}" imported in restricted zone. ${note}`;
const FEATURES_BELOW_TOP = "Features sit below context.ts, http/, main.ts and the rest of ABOVE_FEATURES (eslint.config.js): pass what they need in.";

const PROBES: Record<string, string> = {
  "src/probe/x.ts": "export const x = 1;\n",
  "web/src/probe/x.tsx": "export const X = () => null;\n",
  "src/scripts/x.mjs": "export const x = 1;\n",
  // Two folders importing each other through four files: no file cycle, a folder cycle (a type import counts).
  "src/probe-a/one.ts": 'import { two } from "../probe-b/two.js";\nexport const one = two + 1;\n',
  "src/probe-a/three.ts": "export type Three = { three: 3 };\n",
  "src/probe-b/two.ts": "export const two = 2;\n",
  "src/probe-b/four.ts": 'import type { Three } from "../probe-a/three.js";\nexport const four: Three = { three: 3 };\n',
  "src/streams/probe.ts": 'import { serveForever } from "../main.js";\nexport const probe = serveForever;\n',
  "src/ops/probe.ts": 'import { serveForever } from "../main.js";\nexport const probe = serveForever;\n',
};

/** Files of every kind of place, none in the clicks <-> streams cycle (told at src/clicks/pg-writer.ts). */
const UNCHANGED = [
  "src/cli.ts",
  "src/cluster/worker.ts",
  "src/main.ts",
  "src/context.ts",
  "src/ops/tracing-hooks.ts",
  "src/orphans/orphan-report.ts",
  "src/streams/publisher.ts",
  "src/config.ts",
  "src/storage/db.ts",
  "src/shared/events.ts",
  "web/src/main.tsx",
  "web/src/links/Links.tsx",
];

// clicks/' writers still import streams/outbox.ts while streams/ imports clicks/' types: until that goes, lint
// reports that cycle (and the zone clicks/ -> streams/), and nothing else.
const clicksImportStreams = readdirSync(join(ROOT, "src/clicks"))
  .filter((file) => file.endsWith(".ts"))
  .some((file) => readFileSync(join(ROOT, "src/clicks", file), "utf8").includes("../streams/"));

describe("the layer map (eslint.config.js)", () => {
  let copy: string;
  let unchanged: Record<string, string[]>;
  let wholeSrc: string[] = [];
  let found: Record<string, string[]>;

  // One copy and one ESLint (its start is most of the time): the tree as it is linted first, then the probes.
  // Its time: about 20 s on a loaded machine, and as long again as `eslint src` when the whole of src/ is linted.
  beforeAll(async () => {
    copy = copyOfTheTree();
    const eslint = new ESLint({ cwd: copy });
    unchanged = await lint(eslint, copy, UNCHANGED);
    if (!clicksImportStreams) {
      const all = await lint(eslint, copy, ["src"]);
      wholeSrc = Object.entries(all).flatMap(([file, problems]) => problems.map((p) => `${file}: ${p}`));
    }
    for (const [path, text] of Object.entries(PROBES)) write(copy, path, text);
    found = await lint(eslint, copy, [...Object.keys(PROBES), "src/main.ts"]);
  }, 240_000);

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it("passes the tree as it is: the top, the features newly placed, the bottom, the dashboard", () => {
    expect(Object.keys(unchanged).sort()).toEqual([...UNCHANGED].sort());
    expect(Object.values(unchanged).flat()).toEqual([]);
  });

  it.skipIf(clicksImportStreams)("passes the whole of src/", () => {
    expect(wholeSrc).toEqual([]);
  });

  it("fails on a folder of src/ or web/src/ it does not place, naming eslint.config.js", () => {
    expect(found["src/probe/x.ts"]).toEqual([UNPLACED("src/probe/", "FEATURE_LAYERS, or SRC_LAYERS for what is not a feature")]);
    expect(found["web/src/probe/x.tsx"]).toEqual([UNPLACED("web/src/probe/", "WEB_FEATURES, or WEB_LAYERS")]);
    expect(found["src/scripts/x.mjs"]).toEqual([UNPLACED("src/scripts/", "FEATURE_LAYERS, or SRC_LAYERS for what is not a feature")]);
  });

  it("fails on two folders importing each other, once, with one import each way", () => {
    const unplaced = (folder: string) => UNPLACED(`src/${folder}/`, "FEATURE_LAYERS, or SRC_LAYERS for what is not a feature");
    expect(found["src/probe-a/one.ts"]).toEqual([
      unplaced("probe-a"),
      "house/no-folder-cycle: Folder cycle (type-only imports count): src/probe-a/ -> src/probe-b/ -> src/probe-a/ " +
        "(src/probe-a/one.ts imports src/probe-b/two.ts; src/probe-b/four.ts imports src/probe-a/three.ts).",
    ]);
    expect(found["src/probe-a/three.ts"]).toEqual([unplaced("probe-a")]);
    expect(found["src/probe-b/two.ts"]).toEqual([unplaced("probe-b")]);
    expect(found["src/probe-b/four.ts"]).toEqual([unplaced("probe-b")]);
  });

  it("holds streams/ (a feature) and ops/ (under the top) below main.ts", () => {
    expect(found["src/streams/probe.ts"]).toEqual([ZONE("../main.js", FEATURES_BELOW_TOP)]);
    expect(found["src/ops/probe.ts"]).toEqual([ZONE("../main.js", "ops/ sits below context.ts, http/ and main.ts: they hand it what it traces and logs.")]);
    // main.ts imports ops/, which now imports main.ts: the folder cycle is told at main.ts, the first of the two.
    expect(found["src/main.ts"]).toEqual([
      "house/no-folder-cycle: Folder cycle (type-only imports count): src/main.ts -> src/ops/ -> src/main.ts " +
        "(src/main.ts imports src/ops/logging.ts; src/ops/probe.ts imports src/main.ts).",
    ]);
  });
});
