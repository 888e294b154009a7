// Export (docs/import.md, Export): every link of an account with every field, its tags and its totals,
// as CSV (EXPORT_COLUMNS, the header the CSV import reads) or JSON ({"links": [...]}), streamed page by
// page with back-pressure so memory stays flat whatever the count. Importing the file into another snip
// gives the same links (the password hash included, so the same password opens them).
import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { Db } from "../storage/db.js";
import type { LinkRow } from "../storage/schema.js";
import { iso } from "../shared/clock.js";
import { tagsOfLinks } from "../tags/tags.js";
import { shortUrl } from "../links/public-link.js";
import type { LinkService } from "../links/links.js";
import { CSV_OPTIONS } from "../clicks/csv.js";
import { EXPORT_COLUMNS, type ExportColumn } from "../contract/imports.js";

const PAGE = 1_000;

type Row = Record<ExportColumn, string | number | boolean | null | string[] | unknown[]>;

function exportRow(l: LinkRow, tags: string[], origin: string): Row {
  const time = (v: number | null) => iso(v === null ? null : Number(v));
  return {
    id: l.id,
    short_url: shortUrl(origin, l.domain, l.alias),
    domain: l.domain === "" ? null : l.domain,
    alias: l.alias,
    url: l.url,
    title: l.title,
    note: l.note,
    tags,
    created_at: time(l.created_at),
    expires_at: time(l.expires_at),
    max_clicks: l.max_clicks === null ? null : Number(l.max_clicks),
    password_hash: l.password_hash,
    ios_url: l.ios_url,
    android_url: l.android_url,
    archived: l.archived_at !== null,
    expired_url: l.expired_url,
    preview_title: l.preview_title,
    preview_description: l.preview_description,
    preview_image: l.preview_image,
    rules: l.rules === null ? [] : (JSON.parse(l.rules) as unknown[]),
    split: l.split === null ? [] : (JSON.parse(l.split) as unknown[]),
    click_count: Number(l.click_count),
    imported_clicks: Number(l.imported_clicks),
    starts_at: time(l.starts_at),
    redirect_status: l.redirect_status === null ? null : Number(l.redirect_status),
    crawlable: Number(l.crawlable) === 1,
  };
}

/**
 * Which links of the account: `folder` (a folder's id, or none: links in no folder), `folderIn` (an API key limited
 * to folders), `folderOut` (folders hidden from a member: teams/access.ts).
 */
export interface ExportFilter {
  folder?: { id: string } | { none: true } | null;
  folderIn?: readonly string[] | null;
  folderOut?: readonly string[];
}

async function* rows(db: Db, links: Pick<LinkService, "withCurrentCounts">, ownerId: string, origin: string, filter: ExportFilter): AsyncGenerator<Row> {
  if (filter.folderIn && filter.folderIn.length === 0) return;
  for (let after = 0; ;) {
    let q = db.selectFrom("links").selectAll().where("owner_id", "=", ownerId).where("num", ">", after);
    if (filter.folder) q = "id" in filter.folder ? q.where("folder_id", "=", filter.folder.id) : q.where("folder_id", "is", null);
    if (filter.folderIn) q = q.where("folder_id", "in", [...filter.folderIn]);
    const out = filter.folderOut ?? [];
    if (out.length > 0) q = q.where((eb) => eb.or([eb("folder_id", "is", null), eb("folder_id", "not in", [...out])]));
    const page = await q.orderBy("num").limit(PAGE).execute();
    if (page.length === 0) return;
    const [counted, tags] = await Promise.all([
      links.withCurrentCounts(page),
      tagsOfLinks(
        db,
        page.map((l) => l.id),
      ),
    ]);
    for (const l of counted)
      yield exportRow(
        l,
        (tags.get(l.id) ?? []).map((t) => t.name),
        origin,
      );
    if (page.length < PAGE) return;
    after = Number(page[page.length - 1]!.num);
  }
}

/**
 * Text a spreadsheet would run as a formula, behind the "'"s that neutralise it (csv-stringify's
 * escape_formulas adds one to a cell starting with a formula sign; the import takes one away).
 */
export const QUOTED_FORMULA = /^'+[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Tag names as one cell: ", "-separated, or a JSON list when a name would not survive the split. */
function tagsCell(tags: string[]): string {
  return tags.some((t) => /[,|]/.test(t) || t.startsWith("[") || t !== t.trim()) ? JSON.stringify(tags) : tags.join(", ");
}

function csvCell(v: Row[ExportColumn]): string {
  if (v === null) return "";
  if (Array.isArray(v)) return v.length === 0 ? "" : typeof v[0] === "string" ? tagsCell(v as string[]) : JSON.stringify(v);
  const text = String(v);
  // Text that already starts with "'" and a formula sign gets one more, so the import's unescaping gives it back.
  return QUOTED_FORMULA.test(text) ? `'${text}` : text;
}

export function exportLinks(
  db: Db,
  links: Pick<LinkService, "withCurrentCounts">,
  ownerId: string,
  origin: string,
  format: "csv" | "json",
  filter: ExportFilter = {},
): Readable {
  const source = rows(db, links, ownerId, origin, filter);
  if (format === "csv") {
    async function* cells() {
      yield [...EXPORT_COLUMNS];
      for await (const r of source) yield EXPORT_COLUMNS.map((c) => csvCell(r[c]));
    }
    return Readable.from(cells()).pipe(stringify(CSV_OPTIONS));
  }
  async function* json() {
    yield '{"links":[';
    let first = true;
    for await (const r of source) {
      yield `${first ? "\n" : ",\n"}${JSON.stringify(r)}`;
      first = false;
    }
    yield "\n]}\n";
  }
  return Readable.from(json());
}
