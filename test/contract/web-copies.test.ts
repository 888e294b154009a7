// web/ declares nothing the contract exports: no type or constant of the same name, no list of strings the
// contract already lists (plans, states, sorts, sources, devices, ranges), no union of string literals the contract
// already has (a TypeBox union of literals, a StringEnum, a type alias), and no number constant named like a
// contract limit with its value. The dashboard imports them instead, from src/contract/ (types) and its
// dependency-free tables (tables.ts, plans.ts, form-rules.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { BROKER_KIND_NAMES } from "../../src/contract/broker-kinds.js";
import { COND_KINDS } from "../../src/contract/conditions/index.js";

const ROOT = new URL("../../", import.meta.url).pathname;

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path, ext) : ext.test(e.name) ? [path] : [];
  });
}

const contract = files(join(ROOT, "src/contract"), /\.ts$/).map((path) => readFileSync(path, "utf8"));
const webFiles = (): { path: string; text: string }[] =>
  files(join(ROOT, "web/src"), /\.tsx?$/).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, "utf8") }));
const web = webFiles();

/** Every name the contract exports: declarations and re-exports. */
function contractNames(): Set<string> {
  const names = new Set<string>();
  for (const text of contract) {
    for (const m of text.matchAll(/^export (?:declare )?(?:const|let|type|interface|function|class|enum) (\w+)/gm)) names.add(m[1]!);
    for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm))
      for (const n of m[1]!.split(","))
        names.add(
          n
            .replace(/^\s*type\s+/, "")
            .trim()
            .split(/\s+as\s+/)
            .pop()!,
        );
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

/** The string members of a union written in TypeScript (`"a" | "b" | null`), each union's sorted members (2 or more). */
function tsUnions(text: string): string[][] {
  // Keys picked from a type (Pick<Link, "a" | "b">) name fields, not values.
  const values = text.replace(/\b(?:Pick|Omit|Exclude|Extract)<[^,<>]+,\s*"[^"\n]*"(?:\s*\|\s*"[^"\n]*")*/g, "");
  return [...values.matchAll(/(?:(?:null|undefined)\s*\|\s*)*"[^"\n]*"(?:\s*\|\s*(?:"[^"\n]*"|null|undefined))+(?!\s*\|\s*`)/g)]
    .map((m) => [...m[0].matchAll(/"([^"\n]*)"/g)].map((s) => s[1]!).sort())
    .filter((members) => members.length >= 2);
}

/**
 * Every set of strings the contract fixes, by the name of its declaration (or its file when inline): unions of
 * TypeBox literals (null aside), StringEnum lists, `as const` lists and TypeScript unions.
 */
function contractStringSets(): Map<string, string> {
  const sets = new Map<string, string>();
  const add = (members: string[], name: string) => {
    if (members.length >= 2 && !sets.has(members.sort().join(","))) sets.set(members.join(","), name);
  };
  const strings = (text: string) => [...text.matchAll(/"([^"\n]*)"/g)].map((s) => s[1]!);
  for (const text of contract) {
    const nameAt = (index: number) => [...text.slice(0, index).matchAll(/^(?:export )?(?:const|type) (\w+)/gm)].pop()?.[1] ?? "(inline)";
    for (const m of text.matchAll(/Type\.Union\(\[([^\]]*)\]/g))
      if (/^(?:\s*Type\.(?:Literal\("[^"]*"\)|Null\(\))\s*,?)+$/.test(m[1]!)) add(strings(m[1]!), nameAt(m.index));
    for (const m of text.matchAll(/StringEnum\(\[([^\]]*)\]/g)) add(strings(m[1]!), nameAt(m.index));
    for (const m of text.matchAll(/\[((?:\s*"[^"\n]*"\s*,?)+)\] as const/g)) add(strings(m[1]!), nameAt(m.index));
    for (const members of tsUnions(text)) add(members, "a type union");
  }
  // The registries the contract builds its unions from, read as values (their entries are objects, not strings).
  add([...BROKER_KIND_NAMES], "BROKER_KIND_NAMES");
  add([...COND_KINDS], "COND_KINDS");
  return sets;
}

/** A web file's unions of string literals equal to a set the contract fixes. */
export function unionCopies(files: { path: string; text: string }[], sets = contractStringSets()): string[] {
  return files.flatMap(({ path, text }) =>
    tsUnions(text).flatMap((members) => {
      const name = sets.get(members.join(","));
      return name ? [`${path}: "${members.join('" | "')}" (${name})`] : [];
    }),
  );
}

/** The words of a name that say what it limits (MAX_TAGS_PER_LINK, maxTagsPerLink: tag, link). */
const GENERIC = new Set(["max", "min", "default", "limit", "count", "per", "number", "total"]);
function nameWords(name: string): Set<string> {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split("_")
    .map((w) => w.replace(/s$/, ""));
  return new Set(words.filter((w) => w && !GENERIC.has(w)));
}
const within = (a: Set<string>, b: Set<string>) => a.size > 0 && [...a].every((w) => b.has(w));

/** A number written with digits, `_` and products (20 * 1024 * 1024), else null. */
function numberOf(expression: string): number | null {
  if (!/^[\d_]+(?:\s*\*\s*[\d_]+)*$/.test(expression.trim())) return null;
  return expression.split("*").reduce((product, n) => product * Number(n.trim().replace(/_/g, "")), 1);
}

/** The contract's number constants (its limits): name and value. */
function contractLimits(): { name: string; value: number }[] {
  return contract.flatMap((text) =>
    [...text.matchAll(/^export const (\w+) = ([^;\n]+);/gm)].flatMap((m) => {
      const value = numberOf(m[2]!);
      return value === null ? [] : [{ name: m[1]!, value }];
    }),
  );
}

/** A web file's number constants with a contract limit's value and a name alike (one's words within the other's). */
export function limitCopies(files: { path: string; text: string }[], limits = contractLimits()): string[] {
  return files.flatMap(({ path, text }) =>
    [...text.matchAll(/\b(?:const|let|var) (\w+) = ([^;\n]+);/g)].flatMap((m) => {
      const value = numberOf(m[2]!);
      if (value === null) return [];
      const words = nameWords(m[1]!);
      const limit = limits.find((l) => l.value === value && (within(words, nameWords(l.name)) || within(nameWords(l.name), words)));
      return limit ? [`${path}: ${m[1]} = ${value} (${limit.name})`] : [];
    }),
  );
}

/** Copies the test tolerates: none (the stream broker kinds and the redirect conditions come from the contract). */
const ALLOWED_UNIONS: string[] = [];
const ALLOWED_LIMITS: string[] = [];

describe("web/ holds no copy of the contract", () => {
  it("declares no type or constant with a name the contract exports", () => {
    const names = contractNames();
    expect(names.size).toBeGreaterThan(100);
    const copies = web.flatMap(({ path, text }) =>
      [...withoutImports(text).matchAll(DECLARATION)].filter((m) => names.has(m[1]!)).map((m) => `${path}: ${m[1]}`),
    );
    expect(copies).toEqual([]);
  });

  it("lists no set of strings the contract lists", () => {
    const lists = contractLists();
    expect(lists.size).toBeGreaterThan(5);
    const copies = web.flatMap(({ path, text }) =>
      [...text.matchAll(/\[((?:\s*"[^"\n]*"\s*,?)+)\]/g)].flatMap((m) => {
        const members = [...m[1]!.matchAll(/"([^"]*)"/g)]
          .map((s) => s[1]!)
          .sort()
          .join(",");
        const name = lists.get(members);
        return name ? [`${path}: a copy of ${name}`] : [];
      }),
    );
    expect(copies).toEqual([]);
  });

  it("declares no union of strings the contract has", () => {
    expect(contractStringSets().size).toBeGreaterThan(20);
    expect(unionCopies(web)).toEqual(ALLOWED_UNIONS);
  });

  it("declares no number constant equal to a contract limit and named alike", () => {
    expect(contractLimits().length).toBeGreaterThan(30);
    expect(limitCopies(web)).toEqual(ALLOWED_LIMITS);
  });

  it("catches a probe: a copied union and a copied limit in a web file", () => {
    const probe = {
      path: "web/src/probe.ts",
      text: [
        'type Order = "desc" | "asc";',
        'function kind(k: "mqtt" | "nats" | "redis" | "amqp" | "clickhouse" | null) { return k; }',
        'type Fields = Pick<Link, "alias" | "domain">;',
        "const MAX_WEBHOOK_COUNT = 5;",
        "const maxTagsPerLink = 10;",
        "const FIRST_ROWS = 20;",
        "const MAX_PAGE = 50;",
      ].join("\n"),
    };
    expect(unionCopies([probe])).toEqual([
      'web/src/probe.ts: "asc" | "desc" (a type union)',
      'web/src/probe.ts: "amqp" | "clickhouse" | "mqtt" | "nats" | "redis" (BROKER_KIND_NAMES)',
    ]);
    expect(limitCopies([probe])).toEqual([
      "web/src/probe.ts: MAX_WEBHOOK_COUNT = 5 (MAX_WEBHOOKS)",
      "web/src/probe.ts: maxTagsPerLink = 10 (MAX_TAGS_PER_LINK)",
    ]);
  });
});
