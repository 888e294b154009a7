// The Import page's calls: preview and start an import, follow its job, cancel or resume it, its report, and
// the export of every link. Shapes as the server's import routes answer them (issue 30).
import { request } from "../../api";
import type { ImportFields as ContractFields, ImportJob, ImportState, PreviewReply as ContractPreview, PreviewRow } from "@contract/imports";

export type { ImportJob, PreviewRow };
export type JobState = ImportState;
export type PreviewAction = PreviewRow["action"];
/** The preview's answer without its status. */
export type PreviewReply = Omit<ContractPreview, "status">;

export const SOURCE_NAMES = ["bitly", "shlink", "yourls", "kutt", "dub", "csv"] as const satisfies readonly ContractFields["source"][];
export type SourceName = (typeof SOURCE_NAMES)[number];
export type OnTaken = NonNullable<ContractFields["on_taken"]>;

/** What the form sends to preview and to start an import (the server's body; token and file as the user gave them). */
export type ImportFields = ContractFields;

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
