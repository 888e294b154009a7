// A file as an import source: a CSV with a header row naming snip's link fields (any subset, any order,
// the export's columns among them), or snip's own JSON export. The file is read once per run; the
// cursor is the index of the next record, so a resumed job continues where the last page ended.
import { parse } from "csv-parse/sync";
import { EXPORT_COLUMNS } from "../../contract/imports.js";
import { type ImportSource, type SourceLink, SourceError, type SourceSettings } from "../source.js";
import { splitShortUrl } from "./common.js";

/** Records per page. */
const PAGE = 500;

/** Other names a header may use for a field (Shlink's, Bitly's, Dub's exports and common spellings). */
const HEADER_ALIASES: Record<string, string> = {
  long_url: "url",
  longurl: "url",
  destination: "url",
  destination_url: "url",
  target: "url",
  original_url: "url",
  slug: "alias",
  short_code: "alias",
  shortcode: "alias",
  keyword: "alias",
  key: "alias",
  back_half: "alias",
  clicks: "click_count",
  visits: "click_count",
  password: "password",
};
const KNOWN = new Set<string>([...EXPORT_COLUMNS, "password"]);

/** A record as read: its line (1-based, the header is line 1) and its fields; or a line that could not be read. */
type FileRecord = { line: number; fields: Record<string, string>; error?: undefined } | { line: number; error: string; fields?: undefined };

/** A cell the export neutralised as formula text ("'=...") gets its text back. */
function unformula(v: string): string {
  return /^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v;
}

function header(name: string): string {
  const key = name.trim().toLowerCase().replace(/[\s-]+/g, "_");
  return HEADER_ALIASES[key] ?? key;
}

function parseCsv(text: string): { records: FileRecord[]; unknown: string[] } {
  const skipped: FileRecord[] = [];
  let columns: string[] = [];
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      bom: true,
      info: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err) => {
        if (err) skipped.push({ line: (err as { lines?: number }).lines ?? 0, error: `unreadable CSV line (${err.message.split(":")[0]})` });
        return undefined;
      },
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    throw new SourceError(`the file is not readable CSV: ${(err as Error).message.split(":")[0]}`, false);
  }
  const [head, ...body] = rows;
  if (!head) throw new SourceError("the file is empty: it needs a header row naming the columns (url at least)", false);
  columns = head.record.map(header);
  if (!columns.includes("url")) throw new SourceError('the header row names no "url" column (or long_url, destination)', false);
  const unknown = columns.filter((c) => !KNOWN.has(c));
  const records: FileRecord[] = body.map(({ record, info }) => {
    const fields: Record<string, string> = {};
    record.forEach((v, i) => {
      const c = columns[i];
      if (c !== undefined && KNOWN.has(c) && fields[c] === undefined) fields[c] = unformula(v);
    });
    return { line: info.lines, fields };
  });
  return { records: [...records, ...skipped].sort((a, b) => a.line - b.line), unknown };
}

function parseJson(text: string): FileRecord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SourceError("the file is not valid JSON", false);
  }
  const list = Array.isArray(doc) ? doc : (doc as { links?: unknown })?.links;
  if (!Array.isArray(list)) throw new SourceError('the JSON file holds no list of links (an array, or {"links": [...]} as snip exports)', false);
  return list.map((item, i) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return { line: i + 1, error: "not a link object" };
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
      if (!KNOWN.has(k) || v === null || v === undefined) continue;
      if (k === "tags" && Array.isArray(v)) fields.tags = v.map((t) => (typeof t === "object" && t !== null ? String((t as { name?: unknown }).name ?? "") : String(t))).join(",");
      else if ((k === "rules" || k === "split") && typeof v === "object") fields[k] = JSON.stringify(v);
      else fields[k] = String(v);
    }
    return { line: i + 1, fields };
  });
}

const text = (v: string | undefined) => (v === undefined || v.trim() === "" ? null : v.trim());

function time(v: string | undefined, field: string, notes: string[]): number | null {
  const t = text(v);
  if (t === null) return null;
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    notes.push(`${field} "${t.slice(0, 40)}" is not a date: not carried`);
    return null;
  }
  return ms;
}

function count(v: string | undefined, field: string, notes: string[]): number | null {
  const t = text(v);
  if (t === null) return null;
  if (!/^\d{1,15}$/.test(t)) {
    notes.push(`${field} "${t.slice(0, 40)}" is not a whole number: not carried`);
    return null;
  }
  return Number(t);
}

function json(v: string | undefined, field: string, notes: string[]): unknown {
  const t = text(v);
  if (t === null) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    notes.push(`${field} is not valid JSON: not carried`);
    return undefined;
  }
}

/** One record as a source link (the row's own problems become notes; a missing url fails the line). */
export function recordToLink(r: Record<string, string>, line: number): SourceLink {
  const notes: string[] = [];
  const clicks = (count(r.click_count, "click_count", notes) ?? 0) + (count(r.imported_clicks, "imported_clicks", notes) ?? 0);
  const tags = text(r.tags);
  const preview = [r.preview_title, r.preview_description, r.preview_image].some((p) => text(p) !== null)
    ? { title: text(r.preview_title), description: text(r.preview_description), image: text(r.preview_image) }
    : null;
  const short = splitShortUrl(text(r.short_url));
  const domain = text(r.domain) ?? short.domain;
  return {
    source_id: text(r.id) ?? `line:${line}`,
    url: text(r.url) ?? "",
    alias: text(r.alias) ?? short.alias,
    domain,
    title: text(r.title),
    note: r.note === undefined || r.note === "" ? null : r.note,
    tags: tags === null ? [] : tags.split(/[,|]/).map((t) => t.trim()).filter((t) => t !== ""),
    created_at: time(r.created_at, "created_at", notes),
    expires_at: time(r.expires_at, "expires_at", notes),
    max_clicks: count(r.max_clicks, "max_clicks", notes),
    ios_url: text(r.ios_url),
    android_url: text(r.android_url),
    archived: /^(true|1|yes)$/i.test(text(r.archived) ?? ""),
    expired_url: text(r.expired_url),
    preview,
    rules: json(r.rules, "rules", notes),
    split: json(r.split, "split", notes),
    password_hash: text(r.password_hash),
    ...(text(r.password) !== null ? { password: text(r.password) as string } : {}),
    clicks_total: clicks > 0 ? clicks : null,
    notes,
  };
}

/** A CSV or JSON file's links; unreadable lines come as links with no url and the reason as a note. */
export function fileSource(settings: SourceSettings): ImportSource {
  let parsed: { records: FileRecord[]; unknown: string[] } | null = null;
  const read = () => {
    const raw = settings.file ?? "";
    if (raw.includes("\uFFFD")) throw new SourceError("the file is not UTF-8 text (save it as CSV UTF-8)", false);
    const t = raw.trimStart().replace(/^\uFEFF/, "");
    parsed ??= t.startsWith("[") || t.startsWith("{") ? { records: parseJson(t), unknown: [] } : parseCsv(raw);
    return parsed;
  };
  return {
    name: "csv",
    async page(cursor) {
      const { records, unknown } = read();
      const from = cursor === null ? 0 : Number(cursor);
      const links = records.slice(from, from + PAGE).map((rec, i): SourceLink => {
        const link = rec.error !== undefined ? { source_id: `line:${rec.line}`, url: "", notes: [rec.error] } : recordToLink(rec.fields, rec.line);
        if (from + i === 0 && unknown.length > 0) link.notes = [...(link.notes ?? []), `columns not read: ${unknown.join(", ")}`];
        return link;
      });
      const next = from + PAGE < records.length ? String(from + PAGE) : null;
      return { links, next, total: records.length };
    },
  };
}
