// README.md's Layout: the tree of folders (and of src/'s own files) with a line each. Every folder of each root the
// tree lists must be in it, every entry it names must exist, and each entry says what it holds.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
/** Roots whose files are listed too, not only their folders. */
const FILES_LISTED = new Set(["src/"]);

interface Entry {
  name: string;
  line: string;
}

/** The Layout section's tree: each root (a line at the margin) with the entries indented under it. */
function layoutTree(readme: string): Map<string, Entry[]> {
  const section = /^## Layout\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no ## Layout section");
  const block = /^```\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error("README.md's Layout has no tree (a ``` block)");
  const tree = new Map<string, Entry[]>();
  let root: Entry[] | undefined;
  for (const line of block.split("\n").filter((l) => l.trim() !== "")) {
    const m = /^( *)(\S+)(?: {2,}(\S.*))?$/.exec(line);
    if (!m) throw new Error(`a line of the tree that is not "name  what it holds": ${line}`);
    const [, indent, name = "", text = ""] = m;
    if (indent === "") tree.set(name, (root = []));
    else if (indent === "  " && root) root.push({ name, line: text });
    else throw new Error(`a line of the tree indented other than by 2 under a root: ${line}`);
  }
  return tree;
}

/** What a root holds, less what git ignores (bench/.data/ after a benchmark run, for one). */
function onDisk(root: string): string[] {
  const names = readdirSync(new URL(root, ROOT), { withFileTypes: true })
    .filter((d) => d.isDirectory() || (FILES_LISTED.has(root) && d.isFile()))
    .map((d) => (d.isDirectory() ? `${d.name}/` : d.name));
  return names.filter((n) => !gitIgnores(root + n)).sort();
}

function gitIgnores(path: string): boolean {
  try {
    execFileSync("git", ["check-ignore", "-q", path], { cwd: new URL(".", ROOT), stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("README.md's Layout", () => {
  const tree = layoutTree(readFileSync(new URL("README.md", ROOT), "utf8"));

  const roots = ["src/", "web/src/", "packages/", "test/", "bench/", "docs/", "scripts/", "eslint-rules/", "bin/"];

  it("lists the repository's folders as its roots", () => {
    expect([...tree.keys()]).toEqual(roots);
  });

  it("leaves out no folder at the top of the repository (web/ through web/src/)", () => {
    const top = readdirSync(ROOT, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith(".") && !["node_modules", "dist", "data", "coverage"].includes(d.name))
      .map((d) => `${d.name}/`);
    expect(top.filter((folder) => !roots.some((root) => root.startsWith(folder)))).toEqual([]);
  });

  it.each(roots)("%s: the tree names exactly what is there", (root) => {
    const listed = (tree.get(root) ?? []).map((e) => e.name).sort();
    const there = onDisk(root);
    expect(
      { "there, not in the tree": there.filter((n) => !listed.includes(n)), "in the tree, not there": listed.filter((n) => !there.includes(n)) },
      `README.md's Layout against ${root}`,
    ).toEqual({ "there, not in the tree": [], "in the tree, not there": [] });
  });

  it("says in a line what each entry holds", () => {
    const bare = [...tree.entries()].flatMap(([root, entries]) => entries.filter((e) => e.line.length < 10).map((e) => root + e.name));
    expect(bare).toEqual([]);
  });

  it("reads a tree as the test expects, and refuses a line it cannot place", () => {
    const readme = "# x\n## Layout\n\n```\nsrc/   the server\n  a/    folder a\n  b.ts  file b\ndocs/\n```\n## Next\n";
    expect(Object.fromEntries(layoutTree(readme))).toEqual({
      "src/": [
        { name: "a/", line: "folder a" },
        { name: "b.ts", line: "file b" },
      ],
      "docs/": [],
    });
    expect(() => layoutTree("## Layout\n```\nsrc/\n    deep/  too far\n```\n")).toThrow(/indented other than by 2/);
    expect(() => layoutTree("## Other\n")).toThrow(/no ## Layout/);
  });
});
