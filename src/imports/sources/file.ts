// A file as an import source: a CSV with a header row naming snip's link fields (any subset, any order,
// the export's columns among them), or snip's own JSON export. The file is read once per run; the
// cursor is the index of the next record, so a resumed job continues where the last page ended.
import { EXPORT_COLUMNS } from "../../contract/imports.js";
import { BAD_IN_TEXT, findBadString } from "../../shared/bad-text.js";
import { type ImportSource, type SourceLink, SourceError, type SourceSettings } from "../source.js";
import { QUOTED_FORMULA } from "../export.js";
import { splitShortUrl } from "./common.js";
import { MAX_ROW_DEPTH, depthOf, parseJsonText, readCsv } from "./file-read.js";

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
type FileRecord = { line: number; fields: Record<string, unknown>; error?: undefined } | { line: number; error: string; fields?: undefined };

/** A cell the export neutralised as formula text ("'=...", or "''=..." for text that began "'=") loses one "'". */
function unformula(v: string): string {
  return QUOTED_FORMULA.test(v) ? v.slice(1) : v;
}

function header(name: string): string {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return HEADER_ALIASES[key] ?? key;
}

function parseCsv(text: string): { records: FileRecord[]; unknown: string[] } {
  const [head, ...body] = readCsv(text);
  if (!head) throw new SourceError("the file is empty: it needs a header row naming the columns (url at least)", false);
  if (head.error !== undefined) throw new SourceError("the file is not readable CSV: its header row has a quote that is never closed", false);
  const columns = head.cells.map(header);
  if (!columns.includes("url")) throw new SourceError('the header row names no "url" column (or long_url, destination)', false);
  const unknown = columns.filter((c) => !KNOWN.has(c)).map((c) => c.replace(new RegExp(BAD_IN_TEXT.source, "g"), "?").slice(0, 100));
  const records = body.map((rec): FileRecord => {
    if (rec.error !== undefined) return { line: rec.line, error: rec.error };
    const fields: Record<string, string> = {};
    rec.cells.forEach((v, i) => {
      const c = columns[i];
      if (c !== undefined && KNOWN.has(c) && fields[c] === undefined) fields[c] = unformula(v);
    });
    return { line: rec.line, fields };
  });
  return { records, unknown };
}

function parseJson(text: string): FileRecord[] {
  const parsed = parseJsonText(text);
  if (parsed === null) throw new SourceError("the file is not valid JSON (or nests too deep to read)", false);
  const doc = parsed.value;
  const list = Array.isArray(doc) ? doc : (doc as { links?: unknown })?.links;
  if (!Array.isArray(list)) throw new SourceError('the JSON file holds no list of links (an array, or {"links": [...]} as snip exports)', false);
  return list.map((item: unknown, i): FileRecord => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return { line: i + 1, error: "not a link object" };
    // Bounded before anything walks it: a row nested 20,000 deep fails here, alone.
    if (depthOf(item, MAX_ROW_DEPTH) > MAX_ROW_DEPTH) return { line: i + 1, error: `nested deeper than ${MAX_ROW_DEPTH} levels` };
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item as Record<string, unknown>)) if (KNOWN.has(k) && v !== null && v !== undefined) fields[k] = v;
    return { line: i + 1, fields };
  });
}

/** Longer ids are not kept (an index entry of PostgreSQL holds about 2,700 bytes). */
const MAX_ID_LENGTH = 500;

/** Fields read as text: a JSON row must give them as strings (numbers for the counts and the id too). */
const TEXT_FIELDS = [
  "short_url",
  "domain",
  "alias",
  "url",
  "title",
  "note",
  "created_at",
  "expires_at",
  "password_hash",
  "ios_url",
  "android_url",
  "expired_url",
  "preview_title",
  "preview_description",
  "preview_image",
  "password",
  "starts_at",
];
const COUNT_FIELDS = ["id", "max_clicks", "click_count", "imported_clicks", "redirect_status"];
const FLAG_FIELDS = ["archived", "crawlable"];

/** The first field of a JSON row not of its type, or a string no field can hold; null when the row reads. */
function wrongField(r: Record<string, unknown>): { field: string; message: string } | null {
  for (const f of TEXT_FIELDS) if (r[f] !== undefined && typeof r[f] !== "string") return { field: f, message: "must be string" };
  for (const f of COUNT_FIELDS)
    if (r[f] !== undefined && typeof r[f] !== "string" && typeof r[f] !== "number") return { field: f, message: "must be a number" };
  for (const f of FLAG_FIELDS)
    if (r[f] !== undefined && typeof r[f] !== "boolean" && typeof r[f] !== "string") return { field: f, message: "must be true or false" };
  if (
    r.tags !== undefined &&
    typeof r.tags !== "string" &&
    !(
      Array.isArray(r.tags) &&
      r.tags.every((t) => typeof t === "string" || (typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string"))
    )
  ) {
    return { field: "tags", message: "must be a list of names" };
  }
  const bad = findBadString(r, BAD_IN_TEXT, "", MAX_ROW_DEPTH);
  if (bad !== null)
    return {
      field: bad.replace(/^\./, "").replace(/ \(.*\)$/, "") || "line",
      message: "contains a control character (NUL...) or an unpaired surrogate, which cannot be stored",
    };
  return null;
}

/** Tags as the export writes them: a JSON list when a name holds a comma, a pipe or starts with "[", else separated by ", ". */
function tagList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((t) => (typeof t === "string" ? t : String((t as { name: string }).name)));
  const t = typeof v === "string" ? v.trim() : "";
  if (t === "") return [];
  if (t.startsWith("[")) {
    const parsed = parseJsonText(t);
    if (parsed && Array.isArray(parsed.value) && parsed.value.every((x) => typeof x === "string")) return parsed.value as string[];
  }
  return t.split(/[,|]/);
}

const text = (v: unknown) => (typeof v === "number" ? String(v) : typeof v !== "string" || v.trim() === "" ? null : v.trim());

function time(v: unknown, field: string, notes: string[]): number | null {
  const t = text(v);
  if (t === null) return null;
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    notes.push(`${field} "${t.slice(0, 40)}" is not a date: not carried`);
    return null;
  }
  return ms;
}

function count(v: unknown, field: string, notes: string[]): number | null {
  const t = text(v);
  if (t === null) return null;
  if (!/^\d{1,15}$/.test(t)) {
    notes.push(`${field} "${t.slice(0, 40)}" is not a whole number: not carried`);
    return null;
  }
  return Number(t);
}

const flag = (v: unknown) => v === true || /^(true|1|yes)$/i.test(text(v) ?? "");

/** Rules or split: a JSON row's list as it is, a CSV cell's JSON text parsed (bounded); unreadable text refuses the line. */
function targeting(v: unknown, field: string): unknown {
  if (typeof v !== "string") return v;
  const t = v.trim();
  if (t === "") return undefined;
  const parsed = parseJsonText(t);
  if (parsed === null) throw new LineRefused(field, "is not valid JSON");
  if (depthOf(parsed.value, MAX_ROW_DEPTH) > MAX_ROW_DEPTH) throw new LineRefused(field, "is nested too deeply");
  return parsed.value;
}

class LineRefused extends Error {
  constructor(
    readonly field: string,
    readonly why: string,
  ) {
    super(`${field}: ${why}`);
  }
}

/** One record as a source link: the row's lesser problems become notes; a row that cannot be a link is refused. */
export function recordToLink(r: Record<string, unknown>, line: number): SourceLink {
  const notes: string[] = [];
  // The id goes into the report and the re-run table: one no column can hold is the line's number instead.
  const id = text(r.id);
  const standIn = id !== null && id.length <= MAX_ID_LENGTH && !BAD_IN_TEXT.test(id) ? id : `line:${line}`;
  if (id !== null && id.length > MAX_ID_LENGTH) notes.push(`id longer than ${MAX_ID_LENGTH} characters: the line is known by its number`);
  const wrong = wrongField(r);
  if (wrong) return { source_id: standIn, url: "", refused: { code: "invalid_request", ...wrong } };
  let rules: unknown;
  let split: unknown;
  try {
    rules = targeting(r.rules, "rules");
    split = targeting(r.split, "split");
  } catch (err) {
    if (!(err instanceof LineRefused)) throw err;
    return { source_id: standIn, url: "", refused: { code: "invalid_request", field: err.field, message: err.why } };
  }
  const clicks = (count(r.click_count, "click_count", notes) ?? 0) + (count(r.imported_clicks, "imported_clicks", notes) ?? 0);
  const preview = [r.preview_title, r.preview_description, r.preview_image].some((p) => text(p) !== null)
    ? { title: text(r.preview_title), description: text(r.preview_description), image: text(r.preview_image) }
    : null;
  const short = splitShortUrl(text(r.short_url));
  const domain = text(r.domain) ?? short.domain;
  return {
    source_id: standIn,
    url: text(r.url) ?? "",
    alias: text(r.alias) ?? short.alias,
    domain,
    title: text(r.title),
    note: typeof r.note !== "string" || r.note === "" ? null : r.note,
    tags: tagList(r.tags)
      .map((t) => t.trim())
      .filter((t) => t !== ""),
    created_at: time(r.created_at, "created_at", notes),
    expires_at: time(r.expires_at, "expires_at", notes),
    max_clicks: count(r.max_clicks, "max_clicks", notes),
    ios_url: text(r.ios_url),
    android_url: text(r.android_url),
    archived: flag(r.archived),
    crawlable: flag(r.crawlable),
    valid_since: time(r.starts_at, "starts_at", notes),
    redirect_status: count(r.redirect_status, "redirect_status", notes),
    expired_url: text(r.expired_url),
    preview,
    rules,
    split,
    password_hash: text(r.password_hash),
    ...(text(r.password) !== null ? { password: text(r.password) as string } : {}),
    clicks_total: clicks > 0 ? clicks : null,
    notes,
  };
}

/** A CSV or JSON file's links; a line that cannot be read comes refused, with the reason, and the others go on. */
export function fileSource(settings: SourceSettings): ImportSource {
  let parsed: { records: FileRecord[]; unknown: string[] } | null = null;
  const read = () => {
    const raw = settings.file ?? "";
    if (raw.includes("\uFFFD")) throw new SourceError("the file is not UTF-8 text (save it as CSV UTF-8)", false);
    const t = raw.trimStart().replace(/^\uFEFF/, "");
    parsed ??= t.startsWith("[") || t.startsWith("{") ? { records: parseJson(t), unknown: [] } : parseCsv(raw.replace(/^\uFEFF/, ""));
    return parsed;
  };
  return {
    name: "csv",
    async page(cursor) {
      const { records, unknown } = read();
      const from = cursor === null ? 0 : Number(cursor);
      const links = records.slice(from, from + PAGE).map((rec, i): SourceLink => {
        const link: SourceLink =
          rec.error !== undefined
            ? { source_id: `line:${rec.line}`, url: "", refused: { code: "invalid_request", message: rec.error } }
            : recordToLink(rec.fields, rec.line);
        if (from + i === 0 && unknown.length > 0) link.notes = [...(link.notes ?? []), `columns not read: ${unknown.join(", ")}`];
        return link;
      });
      const next = from + PAGE < records.length ? String(from + PAGE) : null;
      return { links, next, total: records.length };
    },
  };
}
