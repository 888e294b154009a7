// The Import page's calls: preview and start an import, follow its job, cancel or resume it, its report, and
// the export of every link. Shapes as the server's import routes answer them (issue 30).
import { request } from "../../api";

export const SOURCE_NAMES = ["bitly", "shlink", "yourls", "kutt", "dub", "csv"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];
export type OnTaken = "skip" | "generate";

/** What the form sends to preview and to start an import. */
export interface ImportFields {
  source: SourceName;
  base_url?: string;
  token?: string;
  group?: string;
  /** CSV or snip JSON export text. */
  file?: string;
  on_taken?: OnTaken;
  owner?: string;
}

export type PreviewAction = "create" | "skip" | "generate" | "fail";

export interface PreviewRow {
  line: number;
  source_id: string;
  url: string;
  alias: string | null;
  /** Where the link will live. */
  short_url: string | null;
  title: string | null;
  tags: string[];
  action: PreviewAction;
  code: string | null;
  notes: string[];
}

export interface PreviewReply {
  /** Links in the whole source, when the source says. */
  total: number | null;
  /** The first rows, mapped; nothing is written. */
  rows: PreviewRow[];
}

export type JobState = "queued" | "running" | "done" | "failed" | "cancelled";

export interface ImportJob {
  id: string;
  source: SourceName;
  base_url: string | null;
  state: JobState;
  on_taken: OnTaken;
  total: number | null;
  counts: { read: number; created: number; skipped: number; failed: number; visits: number };
  /** Links per second. */
  rate: number;
  eta_seconds: number | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export const ACTIVE_STATES: readonly JobState[] = ["queued", "running"];

const jobPath = (id: string) => `/api/imports/${encodeURIComponent(id)}`;

export const importsApi = {
  preview: (body: ImportFields) => request<PreviewReply>("POST", "/api/imports/preview", { body }),
  start: (body: ImportFields) => request<{ import: ImportJob }>("POST", "/api/imports", { body }).then((r) => r.import),
  list: () => request<{ imports: ImportJob[] }>("GET", "/api/imports").then((r) => r.imports),
  get: (id: string) => request<{ import: ImportJob }>("GET", jobPath(id)).then((r) => r.import),
  cancel: (id: string) => request<{ import: ImportJob }>("POST", `${jobPath(id)}/cancel`).then((r) => r.import),
  resume: (id: string) => request<{ import: ImportJob }>("POST", `${jobPath(id)}/resume`).then((r) => r.import),
  reportHref: (id: string) => `${jobPath(id)}/report.csv`,
};

/** The export of every link of the account (a team owner's with `owner`), as a file download. */
export function exportHref(format: "csv" | "json", owner?: string | null): string {
  const p = new URLSearchParams({ format });
  if (owner) p.set("owner", owner);
  return `/api/links/export?${p}`;
}
