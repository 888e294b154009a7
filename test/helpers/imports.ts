// Import helpers for tests (docs/import.md): start a file import and wait for its end, read its report,
// find a link by alias (archived ones too).
import { expect } from "vitest";
import { parse } from "csv-parse/sync";
import type { ApiClient } from "./client.js";
import { waitFor } from "./wait.js";

export async function finished(c: ApiClient, id: string) {
  return waitFor(
    async () => {
      const r = await c.get(`/api/imports/${id}`);
      return ["done", "failed", "cancelled"].includes(r.body.import.state) ? r.body.import : null;
    },
    { timeoutMs: 30_000, what: `import ${id} to end` },
  );
}

export async function importFile(c: ApiClient, file: string, on_taken: "skip" | "generate" = "skip", source: "csv" | "firebase" = "csv") {
  const r = await c.post("/api/imports", { source, file, on_taken });
  expect(r.status, r.text).toBe(201);
  return finished(c, r.body.import.id);
}

export async function report(c: ApiClient, id: string): Promise<Record<string, string>[]> {
  const r = await c.get(`/api/imports/${id}/report.csv`);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/csv");
  return parse(r.text, { columns: true, bom: true }) as Record<string, string>[];
}

export async function linkByAlias(c: ApiClient, alias: string) {
  for (const state of ["", "&state=archived"]) {
    const r = await c.get(`/api/links?q=${encodeURIComponent(alias)}&limit=100${state}`);
    const found = (r.body.links as { alias: string }[]).find((l) => l.alias === alias);
    if (found) return found as Record<string, any>;
  }
  return undefined;
}
