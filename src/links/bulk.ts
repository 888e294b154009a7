// Bulk creation: one complete URL per line (`urls`), or rows of a URL and an optional alias (`links`, what
// the dashboard sends after splitting its CSV lines); one result per row, a faulty row never stops the others.
import { DomainError, type ErrorCode } from "../shared/errors.js";
import type { LinkRow, UserRow } from "../storage/schema.js";
import { planLimits, requireCapability } from "../accounts/plans.js";
import { requireActive } from "./create-link.js";
import type { LinkDetailsInput } from "./link-details.js";

export type BulkResult =
  | { line: number; url: string; alias?: string; status: "created"; link: LinkRow }
  | { line: number; url: string; alias?: string; status: "error"; code: ErrorCode; message: string; details?: { field: string; message: string }[] };

/** One row to create: `line` is its 1-based position in what the user gave. */
export interface BulkRow extends LinkDetailsInput {
  line: number;
  url: string;
  alias?: string;
}

export type BulkInput = { urls: string; links?: undefined } | { links: Array<{ url: string; alias?: string } & LinkDetailsInput>; urls?: undefined };

/** The rows of a request: `urls` split into non-empty lines, or `links` in order (blank URLs kept, they fail). */
export function bulkRows(input: BulkInput): BulkRow[] {
  if (input.links !== undefined) {
    return input.links.map(({ url, alias, ...details }, i) => ({
      ...details,
      line: i + 1,
      url: url.trim(),
      ...(alias?.trim() ? { alias: alias.trim() } : {}),
    }));
  }
  return input.urls
    .split(/\r\n|\r|\n/)
    .map((raw, i) => ({ line: i + 1, url: raw.trim() }))
    .filter((l) => l.url !== "");
}

export async function bulkCreate(actor: UserRow, rows: BulkRow[], create: (row: BulkRow) => Promise<LinkRow>): Promise<BulkResult[]> {
  requireActive(actor);
  requireCapability(actor.plan, "bulk_create", "Bulk creation");
  const { bulkBatchSize } = planLimits(actor.plan);
  if (rows.length === 0)
    throw new DomainError("invalid_request", "urls: give at least one URL, one per line", [{ field: "urls", message: "Enter at least one URL, one per line" }]);
  if (rows.length > bulkBatchSize) {
    throw new DomainError("invalid_request", `urls: at most ${bulkBatchSize} URLs per request on your plan (got ${rows.length})`, [
      { field: "urls", message: `Enter at most ${bulkBatchSize} lines at a time` },
    ]);
  }
  const results: BulkResult[] = [];
  for (const row of rows) {
    const { line, url } = row;
    const alias = row.alias === undefined ? {} : { alias: row.alias };
    try {
      results.push({ line, url, ...alias, status: "created", link: await create(row) });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      results.push({ line, url, ...alias, status: "error", code: err.code, message: err.message, ...(err.details?.length ? { details: err.details } : {}) });
    }
  }
  return results;
}
