// The Import page's calls: preview and start an import, follow its job, cancel or resume it, its report, and
// the export of every link. Shapes as the server's import routes answer them (issue 30).
import { call, snip } from "../shared/api";
import type { IMPORT_SOURCE_NAMES } from "@contract/tables";
import type { ImportFields, PreviewRow } from "@contract/imports";

export type PreviewAction = PreviewRow["action"];
export type SourceName = (typeof IMPORT_SOURCE_NAMES)[number];
export type OnTaken = NonNullable<ImportFields["on_taken"]>;

const byId = (id: string) => ({ params: { path: { id } } });

export const importsApi = {
  preview: (body: ImportFields) => call(snip.POST("/api/imports/preview", { body })),
  start: (body: ImportFields) => call(snip.POST("/api/imports", { body })).then((r) => r.import),
  list: () => call(snip.GET("/api/imports")).then((r) => r.imports),
  get: (id: string) => call(snip.GET("/api/imports/{id}", byId(id))).then((r) => r.import),
  cancel: (id: string) => call(snip.POST("/api/imports/{id}/cancel", byId(id))).then((r) => r.import),
  resume: (id: string) => call(snip.POST("/api/imports/{id}/resume", byId(id))).then((r) => r.import),
  failed: (id: string) => call(snip.GET("/api/imports/{id}/failed", byId(id))),
  reportHref: (id: string) => `/api/imports/${encodeURIComponent(id)}/report.csv`,
};
