// Imports and export (docs/import.md): preview and start an import, follow it, cancel or resume it,
// download its report; download every link of the account. Session + CSRF. Import bodies may carry a
// file of up to 20 MB, so the session is checked before the body is read.
import type { FastifyReply } from "fastify";
import type { App } from "../app-type.js";
import type { AppContext } from "../../context.js";
import { IdParams, errors } from "../../contract/common.js";
import { ExportQuery, FailedLinesReply, ImportBody, ImportListReply, ImportReply, MAX_IMPORT_FILE_BYTES, PreviewReply } from "../../contract/imports.js";
import { activeUser, signedIn, signedInBeforeBody, signedInRoutes } from "../auth.js";
import { type ExportFilter, exportLinks } from "../../imports/export.js";
import { folderFilter } from "../../teams/folders.js";
import { managedOwner } from "../../teams/access.js";

/** The services these routes use: the compiler refuses any other. */
type Deps = Pick<AppContext, "clock" | "config" | "imports" | "links" | "sessions" | "storage">;

/** A file's text in JSON: escapes may double it, and the other fields are small. */
const IMPORT_BODY_LIMIT = 2 * MAX_IMPORT_FILE_BYTES + 64 * 1024;

export async function importRoutes(app: App, ctx: Deps): Promise<void> {
  await signedInBeforeBody(app, ctx, async (scope) => {
    scope.post(
      "/api/imports/preview",
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ["imports"],
          summary: "Read the source's first page and show how its first 20 links would be imported; nothing is written",
          body: ImportBody,
          response: { 200: PreviewReply, ...errors(400, 401, 403, 413) },
        },
      },
      async (req) => ctx.imports.jobs.preview(activeUser(req), req.body),
    );
    scope.post(
      "/api/imports",
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ["imports"],
          summary: "Start an import job from Bitly, Shlink, YOURLS, Kutt, Dub or a CSV/JSON file (any plan; the plan's link count applies per line)",
          body: ImportBody,
          response: { 201: ImportReply, ...errors(400, 401, 403, 413) },
        },
      },
      async (req, reply) => reply.code(201).send({ status: "success" as const, import: await ctx.imports.jobs.start(activeUser(req), req.body) }),
    );
  });

  await signedInRoutes(app, ctx, async (scope) => {
    scope.get(
      "/api/imports",
      { schema: { tags: ["imports"], summary: "The caller's last 50 imports, newest first", response: { 200: ImportListReply, ...errors(401) } } },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, imports: await ctx.imports.jobs.list(signedIn(req)) };
      },
    );
    scope.get(
      "/api/imports/:id",
      {
        schema: {
          tags: ["imports"],
          summary: "An import: state, counts, rate and time left",
          params: IdParams,
          response: { 200: ImportReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, import: await ctx.imports.jobs.get(signedIn(req), req.params.id) };
      },
    );
    scope.post(
      "/api/imports/:id/cancel",
      {
        schema: {
          tags: ["imports"],
          summary: "Stop an import after the page in hand (links already created stay)",
          params: IdParams,
          response: { 200: ImportReply, ...errors(401, 404) },
        },
      },
      async (req) => ({ status: "success" as const, import: await ctx.imports.jobs.cancel(signedIn(req), req.params.id) }),
    );
    scope.post(
      "/api/imports/:id/resume",
      {
        schema: {
          tags: ["imports"],
          summary: "Continue a failed or cancelled import from the last page it finished",
          params: IdParams,
          response: { 200: ImportReply, ...errors(401, 403, 404, 409) },
        },
      },
      async (req) => ({ status: "success" as const, import: await ctx.imports.jobs.resume(activeUser(req), req.params.id) }),
    );
    scope.get(
      "/api/imports/:id/failed",
      {
        schema: {
          tags: ["imports"],
          summary: "The import's first failed lines with their code and reason (the report CSV has every line)",
          params: IdParams,
          response: { 200: FailedLinesReply, ...errors(401, 404) },
        },
      },
      async (req, reply) => {
        reply.header("cache-control", "no-store");
        return { status: "success" as const, ...(await ctx.imports.jobs.failedLines(signedIn(req), req.params.id)) };
      },
    );
    scope.get(
      "/api/imports/:id/report.csv",
      {
        schema: {
          tags: ["imports"],
          summary: "The import's report: one line per source link (created, skipped or failed, with the reason)",
          params: IdParams,
          response: errors(401, 404),
        },
      },
      async (req, reply) => {
        const csv = await ctx.imports.jobs.report(signedIn(req), req.params.id);
        return reply
          .type("text/csv; charset=utf-8")
          .header("Content-Disposition", `attachment; filename="snip-import-${req.params.id}.csv"`)
          .header("Cache-Control", "private, no-store")
          .send(csv);
      },
    );
    scope.get(
      "/api/links/export",
      {
        schema: {
          tags: ["links"],
          summary:
            "Every link of the account (owner: a team owner's, for an active member) with every field, its tags and totals, as CSV or JSON; the CSV import reads it back",
          querystring: ExportQuery,
          response: errors(401, 404),
        },
      },
      async (req, reply) => {
        const { owner, access } = await managedOwner(ctx.storage.db, signedIn(req), req.query.owner, "stats.view");
        return sendExport(reply, ctx, owner.id, req.query.format ?? "csv", {
          folder: folderFilter(req.query.folder_id),
          folderOut: [...access.folders.hidden],
        });
      },
    );
  });
}

/** What an export takes: the links, and the clock that dates its file. */
export type ExportDeps = Pick<AppContext, "clock" | "storage" | "links" | "config">;

/** Every link of an owner as a download (the dashboard's export, and the external API's). */
export function sendExport(reply: FastifyReply, ctx: ExportDeps, ownerId: string, format: "csv" | "json", filter: ExportFilter = {}): FastifyReply {
  const day = new Date(ctx.clock.now()).toISOString().slice(0, 10);
  return reply
    .type(format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8")
    .header("Content-Disposition", `attachment; filename="snip-links-${day}.${format}"`)
    .header("Cache-Control", "private, no-store")
    .send(exportLinks(ctx.storage.db, ctx.links, ownerId, ctx.config.origin, format, filter));
}
