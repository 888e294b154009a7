// Bulk creation: one complete URL per line, one result per non-empty line; a faulty line never stops the others.
import { DomainError, type ErrorCode } from "../shared/errors.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { planLimits, requireCapability } from "../accounts/plans.js";
import { requireActive } from "./create-link.js";

export type BulkResult =
  | { line: number; url: string; status: "created"; link: LinkRow }
  | { line: number; url: string; status: "error"; code: ErrorCode; message: string };

export async function bulkCreate(
  actor: UserRow,
  text: string,
  create: (url: string) => Promise<LinkRow>,
): Promise<BulkResult[]> {
  requireActive(actor);
  requireCapability(actor.plan, "bulk_create", "Bulk creation");
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((raw, i) => ({ line: i + 1, url: raw.trim() }))
    .filter((l) => l.url !== "");
  const { bulkBatchSize } = planLimits(actor.plan);
  if (lines.length === 0) throw new DomainError("invalid_request", "urls: give at least one URL, one per line", [{ field: "urls", message: "is empty" }]);
  if (lines.length > bulkBatchSize) {
    throw new DomainError("invalid_request", `urls: at most ${bulkBatchSize} URLs per request on your plan (got ${lines.length})`, [
      { field: "urls", message: `at most ${bulkBatchSize} lines` },
    ]);
  }
  const results: BulkResult[] = [];
  for (const { line, url } of lines) {
    try {
      results.push({ line, url, status: "created", link: await create(url) });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      results.push({ line, url, status: "error", code: err.code, message: err.message });
    }
  }
  return results;
}
