// Imports and export (docs/import.md): what the dashboard, the API and `snip import` send and get back.
import { Type, type Static } from "typebox";
import { Body, Nullable, StringEnum } from "./common.js";
import { FolderIdFilter } from "./folders.js";
import { ACTIVE_IMPORT_STATES, FILE_IMPORT_SOURCES, IMPORT_SOURCE_NAMES, IMPORT_STATES, MAX_IMPORT_FILE_BYTES, isFileSource } from "./tables.js";

export { ACTIVE_IMPORT_STATES, FILE_IMPORT_SOURCES, IMPORT_SOURCE_NAMES, IMPORT_STATES, MAX_IMPORT_FILE_BYTES, isFileSource };

export type ImportState = (typeof IMPORT_STATES)[number];
export const ON_TAKEN = ["skip", "generate"] as const;
/** Rows a preview maps. */
export const PREVIEW_ROWS = 20;

export const ImportBody = Body({
  source: StringEnum(
    IMPORT_SOURCE_NAMES,
    "bitly, shlink, yourls, kutt, dub, csv (a CSV file, or snip's JSON export) or firebase (a CSV of Firebase Dynamic Links: short and long link)",
  ),
  base_url: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: "The source API's address (Bitly and Dub have defaults)" }))),
  token: Type.Optional(Nullable(Type.String({ maxLength: 4096, description: "API key, access token or signature token; stored sealed until the job ends" }))),
  group: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "Bitly: the group guid (default: every group)" }))),
  file: Type.Optional(
    Nullable(Type.String({ maxLength: MAX_IMPORT_FILE_BYTES, description: "csv: the file's text (CSV with a header row, or snip's JSON export)" })),
  ),
  on_taken: Type.Optional(StringEnum(ON_TAKEN, "When an alias is taken on the target host: skip the line (default) or give it a generated alias")),
});
export type ImportFields = Static<typeof ImportBody>;

export const ImportCountsSchema = Type.Object({
  read: Type.Integer({ description: "Links read from the source" }),
  created: Type.Integer(),
  skipped: Type.Integer({ description: "Already imported by an earlier run, or alias taken with on_taken=skip" }),
  failed: Type.Integer(),
  visits: Type.Integer({ description: "Visits imported as clicks (sources that keep visits: Shlink)" }),
});

export const ImportJobSchema = Type.Object({
  id: Type.String(),
  source: Type.String(),
  base_url: Nullable(Type.String()),
  state: StringEnum(IMPORT_STATES, "queued, running, done, failed (resumable) or cancelled (resumable)"),
  on_taken: Type.String(),
  total: Nullable(Type.Integer({ description: "Links in the source, when it says" })),
  counts: ImportCountsSchema,
  rate: Type.Number({ description: "Links per second in the current run" }),
  eta_seconds: Nullable(Type.Integer({ description: "Time left at the current rate, when total is known" })),
  error: Nullable(Type.String()),
  working: Type.Boolean({ description: "An instance is working on the job now (a cancelled job may still be finishing the page in hand)" }),
  created_at: Type.String(),
  started_at: Nullable(Type.String()),
  finished_at: Nullable(Type.String()),
  updated_at: Type.String(),
});
export type ImportJob = Static<typeof ImportJobSchema>;

export const ImportReply = Type.Object({ status: Type.Literal("success"), import: ImportJobSchema });
/** The first failed lines of an import, as its report has them (the page lists them; the CSV has every line). */
export const FAILED_LINES_SHOWN = 100;
export const FailedLineSchema = Type.Object({
  line: Type.Integer(),
  source_id: Type.String(),
  url: Type.String(),
  alias: Nullable(Type.String()),
  code: Type.String(),
  notes: Type.String({ description: "Why, in words (the report's notes column)" }),
});
export type FailedLine = Static<typeof FailedLineSchema>;
export const FailedLinesReply = Type.Object({
  status: Type.Literal("success"),
  failed: Type.Array(FailedLineSchema, { description: `The first ${FAILED_LINES_SHOWN} failed lines, in line order` }),
  more: Type.Boolean({ description: "True when the report has more failed lines than these" }),
});
export const ImportListReply = Type.Object({ status: Type.Literal("success"), imports: Type.Array(ImportJobSchema) });

export const PreviewRowSchema = Type.Object({
  line: Type.Integer(),
  source_id: Type.String(),
  url: Type.String(),
  alias: Nullable(Type.String()),
  short_url: Nullable(Type.String({ description: "Where the link will live (null when it fails or gets a generated alias)" })),
  title: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  action: StringEnum(["create", "skip", "generate", "fail"] as const, "What the import will do with the line"),
  code: Nullable(Type.String({ description: "Why it skips or fails (an error code of docs/api.md)" })),
  notes: Type.Array(Type.String()),
});
export type PreviewRow = Static<typeof PreviewRowSchema>;
export const PreviewReply = Type.Object({ status: Type.Literal("success"), total: Nullable(Type.Integer()), rows: Type.Array(PreviewRowSchema) });
export type PreviewReply = Static<typeof PreviewReply>;

export const EXPORT_FORMATS = ["csv", "json"] as const;
export const ExportQuery = Type.Object({
  format: Type.Optional(StringEnum(EXPORT_FORMATS, "csv (default) or json")),
  owner: Type.Optional(Type.String({ maxLength: 64, description: "A team owner's user id: that owner's links, for an active member" })),
  folder_id: Type.Optional(FolderIdFilter),
});

/** The columns of the CSV export, in order: also what the CSV import reads (any subset, any order). */
export const EXPORT_COLUMNS = [
  "id",
  "short_url",
  "domain",
  "alias",
  "url",
  "title",
  "note",
  "tags",
  "created_at",
  "expires_at",
  "max_clicks",
  "password_hash",
  "ios_url",
  "android_url",
  "archived",
  "expired_url",
  "preview_title",
  "preview_description",
  "preview_image",
  "rules",
  "split",
  "click_count",
  "imported_clicks",
  "starts_at",
  "redirect_status",
  "crawlable",
] as const;
export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
