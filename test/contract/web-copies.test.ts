// web/ declares nothing the contract exports: no type or constant of the same name, and no list of strings the
// contract already lists (plans, states, sorts, sources, devices, ranges). The dashboard imports them instead,
// from src/contract/ (types) and its dependency-free tables (tables.ts, plans.ts, form-rules.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path, ext) : ext.test(e.name) ? [path] : [];
  });
}

const contract = files(join(ROOT, "src/contract"), /\.ts$/).map((path) => readFileSync(path, "utf8"));
const web = files(join(ROOT, "web/src"), /\.tsx?$/).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, "utf8") }));

/** Every name the contract exports: declarations and re-exports. */
function contractNames(): Set<string> {
  const names = new Set<string>();
  for (const text of contract) {
    for (const m of text.matchAll(/^export (?:declare )?(?:const|let|type|interface|function|class|enum) (\w+)/gm)) names.add(m[1]!);
    for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) for (const n of m[1]!.split(",")) names.add(n.replace(/^\s*type\s+/, "").trim().split(/\s+as\s+/).pop()!);
  }
  names.delete("");
  return names;
}

/** The contract's lists of strings (`[...] as const`), each as its sorted members. */
function contractLists(): Map<string, string> {
  const lists = new Map<string, string>();
  for (const text of contract)
    for (const m of text.matchAll(/export const (\w+) = \[([^\]]*)\] as const/g)) {
      const members = [...m[2]!.matchAll(/"([^"]*)"/g)].map((s) => s[1]!);
      if (members.length >= 3) lists.set(members.sort().join(","), m[1]!);
    }
  return lists;
}

/** A web file's declarations, at any depth (top-level ones and those inside functions). */
const DECLARATION = /\b(?:const|let|var|type|interface|function|class|enum) (\w+)/g;
/** Imports and re-exports name what is declared elsewhere. */
const withoutImports = (text: string) => text.replace(/^(?:import|export) [^;]*? from "[^"]*";$/gms, "").replace(/^export \{[^}]*\};$/gm, "");

describe("web/ holds no copy of the contract", () => {
  it("declares no type or constant with a name the contract exports", () => {
    const names = contractNames();
    expect(names.size).toBeGreaterThan(100);
    const copies = web.flatMap(({ path, text }) => [...withoutImports(text).matchAll(DECLARATION)].filter((m) => names.has(m[1]!)).map((m) => `${path}: ${m[1]}`));
    expect(copies).toEqual([]);
  });

  it("lists no set of strings the contract lists", () => {
    const lists = contractLists();
    expect(lists.size).toBeGreaterThan(5);
    const copies = web.flatMap(({ path, text }) =>
      [...text.matchAll(/\[((?:\s*"[^"\n]*"\s*,?)+)\]/g)].flatMap((m) => {
        const members = [...m[1]!.matchAll(/"([^"]*)"/g)].map((s) => s[1]!).sort().join(",");
        const name = lists.get(members);
        return name ? [`${path}: a copy of ${name}`] : [];
      }),
    );
    expect(copies).toEqual([]);
  });
});
