// Bulk lines as CSV: `url` or `url,alias` per line (a URL holding a comma is quoted, as CSV has it), or
// under a header row naming any of the link's columns (docs/bulk.md); the results as a CSV file, and the
// text left once the created lines are taken out.
import { parse } from "csv-parse/browser/esm/sync";
import { stringify } from "csv-stringify/browser/esm/sync";

/** One row to send: where it came from in the text (first and last line, 1-based) and what it asks for. */
export interface BulkLine {
  first: number;
  last: number;
  url: string;
  alias?: string;
  /** From a header row's other columns. */
  details?: BulkDetails;
}

export interface BulkDetails {
  title?: string;
  note?: string;
  tags?: string[];
  expired_url?: string;
  preview?: { title?: string; description?: string; image?: string };
}

/** The columns a header row may name (`url` among them). */
export const BULK_COLUMNS = ["url", "alias", "title", "note", "tags", "expired_url", "preview_title", "preview_description", "preview_image"] as const;
type Column = (typeof BULK_COLUMNS)[number];

/** A header row: every cell a known column, `url` among them, none twice. */
function headerOf(cells: string[]): Column[] | null {
  const names = cells.map((c) => c.trim().toLowerCase());
  const known = names.every((n): n is Column => (BULK_COLUMNS as readonly string[]).includes(n));
  return known && names.includes("url") && new Set(names).size === names.length ? (names as Column[]) : null;
}

/** A row under a header: its cells by column, empty ones left out. */
function rowOf(header: Column[], cells: string[]): { url: string; alias?: string; details?: BulkDetails } {
  const get = (c: Column) => cells[header.indexOf(c)] ?? "";
  const d: BulkDetails = {};
  if (get("title")) d.title = get("title");
  if (get("note")) d.note = get("note");
  if (get("tags"))
    d.tags = get("tags")
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
  if (get("expired_url")) d.expired_url = get("expired_url");
  const preview = { title: get("preview_title"), description: get("preview_description"), image: get("preview_image") };
  const card = Object.fromEntries(Object.entries(preview).filter(([, v]) => v !== ""));
  if (Object.keys(card).length > 0) d.preview = card;
  return { url: get("url"), ...(get("alias") ? { alias: get("alias") } : {}), ...(Object.keys(d).length > 0 ? { details: d } : {}) };
}

export interface ParsedLines {
  rows: BulkLine[];
  /** Lines that are no `url` or `url,alias` row, with why. */
  problems: { line: number; message: string }[];
}

export function parseBulkText(text: string): ParsedLines {
  const rows: BulkLine[] = [];
  const problems: ParsedLines["problems"] = [];
  let records: { record: string[]; info: { lines: number; bytes: number } }[];
  try {
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as unknown as typeof records;
  } catch (e) {
    const line = typeof (e as { lines?: unknown }).lines === "number" ? (e as { lines: number }).lines : 1;
    return { rows: [], problems: [{ line, message: "This line is not valid CSV: close the quote around the URL" }] };
  }
  let previousEnd = 0;
  let header: Column[] | null = null;
  for (const [i, { record, info }] of records.entries()) {
    const last = info.lines;
    // The record's first line: the line after the previous record's last, past blank lines it skipped.
    const first = Math.max(previousEnd + 1, last - countNewlines(record));
    previousEnd = last;
    if (i === 0 && (header = headerOf(record))) continue;
    if (header) {
      if (record.every((c) => c === "")) continue;
      if (record.length > header.length && record.slice(header.length).some((c) => c !== "")) {
        problems.push({ line: last, message: `This line has more cells than the header's ${header.length} columns` });
        continue;
      }
      rows.push({ first, last, ...rowOf(header, record) });
      continue;
    }
    const cells = record.filter((c, i) => i < 2 || c !== "");
    if (cells.every((c) => c === "")) continue;
    if (cells.length > 2) {
      problems.push({ line: last, message: "Write `url` or `url,alias` on each line (quote a URL that holds a comma)" });
      continue;
    }
    const [url = "", alias = ""] = cells;
    rows.push({ first, last, url, ...(alias ? { alias } : {}) });
  }
  return { rows, problems };
}

function countNewlines(record: string[]): number {
  return record.reduce((n, c) => n + (c.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
}

/** The text without the lines of the given rows (a second submit cannot create them twice). */
export function withoutLines(text: string, rows: readonly BulkLine[]): string {
  const drop = new Set<number>();
  for (const r of rows) for (let l = r.first; l <= r.last; l++) drop.add(l);
  return text
    .split(/\r\n|\r|\n/)
    .filter((_, i) => !drop.has(i + 1))
    .join("\n")
    .replace(/^\s*\n/, "");
}

/** What the CSV reads of a result (api.ts's BulkResult; kept apart so that this file imports nothing of the dashboard). */
interface ResultRow {
  line: number;
  url: string;
  alias?: string;
  status: "created" | "error";
  link?: { short_url: string };
  code?: string;
  message?: string;
}

/** The results as CSV: the source line, what was asked, and the short URL or the error. */
export function resultsCsv(results: readonly ResultRow[], rows: readonly BulkLine[]): string {
  const data = results.map((r) => {
    const row = rows[r.line - 1];
    return [
      row?.first ?? r.line,
      r.url,
      r.alias ?? "",
      r.status,
      r.link?.short_url ?? "",
      r.status === "error" ? (r.code ?? "") : "",
      r.status === "error" ? (r.message ?? "") : "",
    ];
  });
  return stringify([["line", "url", "alias", "status", "short_url", "code", "message"], ...data]);
}
