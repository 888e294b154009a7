// Every line its own fate (docs/import.md): a line whose checks throw something that is not a refusal
// fails alone with `internal`; a database that cannot serve still stops the page (the job resumes).
import { describe, expect, it } from "vitest";
import pino from "pino";
import { prepareLine } from "../../src/imports/import-link.js";
import { DatabaseUnavailableError } from "../../src/storage/unavailable.js";
import type { ImportLinkDeps } from "../../src/imports/import-link.js";
import type { ImportTarget } from "../../src/imports/mapping.js";
import type { UserRow } from "../../src/storage/schema.js";

const target: ImportTarget = { owner: { id: "u1", plan: "business", status: "active" } as UserRow, domains: new Set(), mainHost: "snip.example" };

function deps(prepare: () => Promise<never>): ImportLinkDeps & { logged: unknown[] } {
  const logged: unknown[] = [];
  return {
    db: null as unknown as ImportLinkDeps["db"],
    links: { prepare, createMany: async () => [], announceCreated: async () => undefined },
    clicks: { record: () => undefined, pending: 0, flush: async () => undefined, writeBuffered: async () => undefined },
    now: () => Date.parse("2026-11-28T00:00:00Z"),
    log: { error: (obj: unknown) => void logged.push(obj) } as unknown as pino.Logger,
    logged,
  };
}

describe("one line's failure", () => {
  it("a TypeError in a line's checks fails that line with `internal`, logged; it does not throw", async () => {
    const d = deps(async () => {
      throw new TypeError("raw.trim is not a function");
    });
    const out = await prepareLine(d, target, "skip", { source_id: "line:2", url: "https://example.com/a", alias: "fate-one" }, new Map());
    expect(out.prepared).toBeNull();
    expect(out.item).toEqual({
      source_id: "line:2",
      url: "https://example.com/a",
      alias: "fate-one",
      domain: null,
      status: "failed",
      code: "internal",
      notes: ["an internal error on this line (logged); the other lines went on"],
    });
    expect(d.logged).toHaveLength(1);
  });

  it("a database that cannot serve is not one line's fault: it is thrown (the page is retried, then the job fails resumably)", async () => {
    const d = deps(async () => {
      throw new DatabaseUnavailableError("gone");
    });
    await expect(prepareLine(d, target, "skip", { source_id: "line:2", url: "https://example.com/a" }, new Map())).rejects.toThrow("gone");
  });
});
