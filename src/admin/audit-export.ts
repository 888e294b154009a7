// The audit log's exports (docs/audit.md, docs/operator.md): every entry a filter selects, newest first, as CSV or JSON,
// streamed. The log is read a page at a time with the list's keyset (id descending) and written as the client reads it,
// so memory stays flat whatever the range holds, and a client that goes away stops the reads. Entries appended
// during the export are not in it (the first page fixes the newest id).
import { Readable } from "node:stream";
import type { AuditEntry } from "../contract/admin.js";
import { AUDIT_CSV_HEADER, type AuditExportFormat } from "../contract/audit.js";
import { toCsv } from "../clicks/csv.js";
import { parseDay } from "../clicks/range.js";
import { invalid } from "../shared/errors.js";
import { type AuditFilter, type AuditLog, publicAuditEntry } from "./audit-log.js";

/** Entries read per statement. */
export const EXPORT_PAGE = 1_000;

const DAY_MS = 86_400_000;

export type { AuditExportFormat };

/** from/to (UTC days, both included) as the filter's times; invalid_request for a day that does not exist or an inverted range. */
export function auditRange(q: { from?: string; to?: string }): Pick<AuditFilter, "fromMs" | "toMs"> {
  const fromMs = q.from === undefined ? undefined : parseDay(q.from);
  const toDay = q.to === undefined ? undefined : parseDay(q.to);
  if (fromMs === null) throw invalid("from", "is not a day (YYYY-MM-DD)");
  if (toDay === null) throw invalid("to", "is not a day (YYYY-MM-DD)");
  if (fromMs !== undefined && toDay !== undefined && toDay < fromMs) throw invalid("to", "is before from");
  return { fromMs, toMs: toDay === undefined ? undefined : toDay + DAY_MS };
}

/** Every entry of the filter, newest first, a page at a time. */
export async function* auditEntries(
  audit: Pick<AuditLog, "page">,
  filter: Omit<AuditFilter, "limit" | "before">,
  pageSize = EXPORT_PAGE,
): AsyncGenerator<AuditEntry> {
  let before: number | undefined;
  for (;;) {
    const rows = await audit.page({ ...filter, before, limit: pageSize });
    for (const r of rows.slice(0, pageSize)) yield publicAuditEntry(r);
    if (rows.length <= pageSize) return;
    before = Number(rows[pageSize - 1]!.id);
  }
}

/** An entry as a CSV record: JSON text for before and after (null as "null"), an empty cell for no actor id. */
export function auditCsvRecord(e: AuditEntry): string[] {
  return [
    e.id,
    e.at,
    e.actor_id ?? "",
    e.actor_email,
    e.actor_role,
    e.action,
    e.target_type,
    e.target_id,
    e.summary,
    JSON.stringify(e.before),
    JSON.stringify(e.after),
  ];
}

async function* csvRecords(entries: AsyncIterable<AuditEntry>): AsyncGenerator<string[]> {
  yield [...AUDIT_CSV_HEADER];
  for await (const e of entries) yield auditCsvRecord(e);
}

async function* jsonText(entries: AsyncIterable<AuditEntry>): AsyncGenerator<string> {
  let first = true;
  for await (const e of entries) {
    yield `${first ? "[" : ","}\n${JSON.stringify(e)}`;
    first = false;
  }
  yield first ? "[]\n" : "\n]\n";
}

/** The export as a stream: CSV with the clicks export's options (formula cells neutralised), or a JSON array of entries. */
export function auditExport(
  audit: Pick<AuditLog, "page">,
  filter: Omit<AuditFilter, "limit" | "before">,
  format: AuditExportFormat,
  pageSize = EXPORT_PAGE,
): Readable {
  const entries = auditEntries(audit, filter, pageSize);
  return format === "csv" ? toCsv(csvRecords(entries)) : Readable.from(jsonText(entries), { objectMode: false });
}

/** "snip-<what>-audit-<from>-<to>.<format>", "all" for an open end. */
export function auditFilename(what: "team" | "instance", q: { from?: string; to?: string }, format: AuditExportFormat): string {
  return `snip-${what}-audit-${q.from ?? "all"}-${q.to ?? "all"}.${format}`;
}

/** The content type of each format. */
export const AUDIT_EXPORT_TYPES: Readonly<Record<AuditExportFormat, string>> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** An export as a download: its headers (type, file name, no caching) and its stream. */
export function auditDownload(
  audit: Pick<AuditLog, "page">,
  what: "team" | "instance",
  q: { action?: string; actor?: string; target?: string; from?: string; to?: string },
  format: AuditExportFormat,
  teamId?: string,
): { headers: Record<string, string>; body: Readable } {
  const filter = { teamId, action: q.action, actor: q.actor, target: q.target, ...auditRange(q) };
  return {
    headers: {
      "content-type": AUDIT_EXPORT_TYPES[format],
      "content-disposition": `attachment; filename="${auditFilename(what, q, format)}"`,
      "cache-control": "private, no-store",
    },
    body: auditExport(audit, filter, format),
  };
}
