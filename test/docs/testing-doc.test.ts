// docs/testing.md against the tree: its table of test/ folders names exactly the folders there are, and the
// figures it states (the fuzz runs' cases and seed) are the defaults the test files use.
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");
const doc = read("docs/testing.md");

/** The folders the "What each folder tests" table names, in its order. */
function tableFolders(markdown: string): string[] {
  const section = /^## What each folder tests\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1];
  if (!section) throw new Error('docs/testing.md has no "## What each folder tests" section');
  return [...section.matchAll(/^\| `test\/([^`/]+)\/` \|/gm)].map((m) => m[1] ?? "");
}

/** The default of `Number(process.env.NAME ?? N)` or `process.env.NAME ? … : N` in a test file. */
function defaultOf(source: string, name: string): number {
  const m = new RegExp(`process\\.env\\.${name} (?:\\?\\?|\\? [^:]+:) (\\d+)`).exec(source);
  if (!m) throw new Error(`no default for ${name}`);
  return Number(m[1]);
}

describe("docs/testing.md", () => {
  it("has a line for every folder of test/, and none for a folder that is not there", () => {
    const there = readdirSync(new URL("test/", ROOT), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(tableFolders(doc).sort()).toEqual(there);
  });

  it("states the cases per route that test/api/fuzz-routes.test.ts runs by default", () => {
    const runs = defaultOf(read("test/api/fuzz-routes.test.ts"), "SNIP_FUZZ_RUNS");
    expect(doc).toContain(`# what CI runs: ${runs} cases per route`);
  });

  it("states the seed and file counts test/api/fuzz-imports.test.ts runs by default", () => {
    const source = read("test/api/fuzz-imports.test.ts");
    const seed = defaultOf(source, "SNIP_FUZZ_SEED");
    const runs = defaultOf(source, "SNIP_FUZZ_RUNS");
    expect(doc).toContain(`CI runs seed ${seed} with ${runs} CSV and ${runs} JSON files per engine`);
  });

  it("reads the table and the defaults as the checks above expect", () => {
    expect(tableFolders("## What each folder tests\n\n| folder | x |\n|---|---|\n| `test/a/` | y |\n| `test/b/` | z |\n\n## Next\n")).toEqual(["a", "b"]);
    expect(defaultOf("const RUNS = Number(process.env.X_RUNS ?? 24);", "X_RUNS")).toBe(24);
    expect(defaultOf("const SEED = process.env.X_SEED ? Number(process.env.X_SEED) : 37;", "X_SEED")).toBe(37);
  });
});
