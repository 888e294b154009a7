// Every line its own fate (docs/import.md): a line whose creation throws something that is not a refusal
// fails alone with `internal`; a database that cannot serve still stops the page (the job resumes); the
// runs of lines created at once on PostgreSQL never hold a repeated source id or alias.
import { describe, expect, it } from "vitest";
import pino from "pino";
import { importLink } from "../../src/imports/import-link.js";
import { waves } from "../../src/imports/import-runner.js";
import { DatabaseUnavailableError } from "../../src/storage/unavailable.js";
import type { ImportLinkDeps } from "../../src/imports/import-link.js";
import type { ImportTarget } from "../../src/imports/mapping.js";
import type { UserRow } from "../../src/storage/schema.js";

const target: ImportTarget = { owner: { id: "u1", plan: "business", status: "active" } as UserRow, domains: new Set(), mainHost: "snip.example" };

function deps(create: () => Promise<never>): ImportLinkDeps & { logged: unknown[] } {
  const logged: unknown[] = [];
  return {
    db: null as unknown as ImportLinkDeps["db"],
    links: { create },
    clicks: { record: () => undefined, pending: 0, flush: async () => undefined, writeBuffered: async () => undefined },
    now: () => Date.parse("2026-11-28T00:00:00Z"),
    log: { error: (obj: unknown) => void logged.push(obj) } as unknown as pino.Logger,
    logged,
  };
}

describe("one line's failure", () => {
  it("a TypeError in a creation fails that line with `internal`, logged; it does not throw", async () => {
    const d = deps(async () => {
      throw new TypeError("raw.trim is not a function");
    });
    const out = await importLink(d, target, "csv:x", "skip", { source_id: "line:2", url: "https://example.com/a", alias: "fate-one" }, new Map());
    expect(out).toEqual({ source_id: "line:2", url: "https://example.com/a", alias: "fate-one", domain: null, status: "failed", code: "internal", notes: ["an internal error on this line (logged); the other lines went on"] });
    expect(d.logged).toHaveLength(1);
  });

  it("a database that cannot serve is not one line's fault: it is thrown (the page is retried, then the job fails resumably)", async () => {
    const d = deps(async () => {
      throw new DatabaseUnavailableError("gone");
    });
    await expect(importLink(d, target, "csv:x", "skip", { source_id: "line:2", url: "https://example.com/a" }, new Map())).rejects.toThrow("gone");
  });
});

describe("waves of lines created at once", () => {
  const l = (source_id: string, alias?: string) => ({ source_id, alias: alias ?? null });
  it("cuts at the size, and before a repeated source id or alias (any case)", () => {
    const got = waves([l("1", "a"), l("2", "b"), l("3"), l("4", "c"), l("5", "d"), l("6", "D"), l("6"), l("7"), l("8", "x"), l("9", "X")], 4).map((w) => w.map((x) => x.source_id));
    expect(got).toEqual([["1", "2", "3", "4"], ["5"], ["6"], ["6", "7", "8"], ["9"]]);
  });
  it("one at a time on SQLite", () => {
    expect(waves([l("1"), l("2")], 1).map((w) => w.length)).toEqual([1, 1]);
  });
});
