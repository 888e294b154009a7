// Import jobs (docs/import.md, Jobs): started, listed, cancelled, resumed and reported here; run by
// ImportRunner (import-runner.ts) on whichever instance claims them. The API token is sealed in the row
// (a resumed job needs it again) and cleared with the file once the job is done.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { DomainError, invalid } from "../shared/errors.js";
import { BAD_IN_TEXT, storable } from "../shared/bad-text.js";
import { newId } from "../shared/ids.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { Db } from "../storage/db.js";
import type { ImportJobRow, UserRow } from "../storage/schema.js";
import { type CreateLinkInput, requireActive } from "../links/create-link.js";
import type { LinkService } from "../links/links.js";
import { planLimits } from "../accounts/plans.js";
import { shortUrl } from "../links/public-link.js";
import { CSV_OPTIONS } from "../clicks/csv.js";
import {
  FAILED_LINES_SHOWN,
  type FailedLine,
  type ImportFields,
  type ImportJob,
  isFileSource,
  MAX_IMPORT_FILE_BYTES,
  PREVIEW_ROWS,
  type PreviewReply,
  type PreviewRow,
} from "../contract/imports.js";
import { type ImportSource, type ImportSourceName, SourceError, type SourceSettings } from "./source.js";
import type { ImportTarget } from "./mapping.js";
import { mapLink } from "./mapping.js";
import { importedBefore, reason, refusalOf } from "./import-link.js";
import { type JobRowView, VIEW_COLUMNS, jobView } from "./job-view.js";

/** A failed or cancelled import keeps its token and file this long for a resume. */
export const ABANDONED_MS = 30 * 86_400_000;

/** Base addresses of the hosted services (the others are self-hosted: the user gives one). */
export const DEFAULT_BASE: Partial<Record<ImportSourceName, string>> = { bitly: "https://api-ssl.bitly.com", dub: "https://api.dub.co" };

export interface ImportJobsDeps {
  db: Db;
  now: () => number;
  box: SealedBox;
  origin: string;
  mainHost: string;
  links: Pick<LinkService, "check">;
  open: (source: ImportSourceName, settings: SourceSettings) => ImportSource;
  /** A job was queued: the runner looks for work now. */
  wake: () => void;
}

/** The settings a job was started with, its token opened. */
export function settingsOf(box: SealedBox, job: ImportJobRow): SourceSettings {
  return { base_url: job.base_url, token: job.token_sealed ? box.open(job.token_sealed, job.id) : null, group: job.source_group, file: job.file };
}

/** What a source needs, checked before anything is read. */
function checkFields(f: ImportFields): { source: ImportSourceName; settings: SourceSettings } {
  const source = f.source;
  const base = f.base_url?.trim() || DEFAULT_BASE[source] || null;
  if (isFileSource(source)) {
    if (!f.file) throw invalid("file", source === "csv" ? "Choose a CSV or JSON file" : "Choose a CSV file");
    // The limit is in bytes as stored (the schema's maxLength counts UTF-16 units: two-byte text would pass at 30 MB).
    if (Buffer.byteLength(f.file, "utf8") > MAX_IMPORT_FILE_BYTES) throw invalid("file", `the file is larger than ${MAX_IMPORT_FILE_BYTES / 1024 / 1024} MB`);
    return { source, settings: { file: f.file } };
  }
  if (!base) throw invalid("base_url", "Enter the address of your server's API");
  if (!/^https?:\/\//i.test(base)) throw invalid("base_url", "Enter an http:// or https:// address");
  if (!f.token?.trim()) throw invalid("token", "Enter the API key or token");
  return { source, settings: { base_url: base.replace(/\/+$/, ""), token: f.token.trim(), group: f.group?.trim() || null } };
}

/** The idempotence key of a source's account: the same links read again are recognised. */
function sourceKey(source: ImportSourceName, s: SourceSettings): string {
  if (isFileSource(source))
    return `${source}:${createHash("sha256")
      .update(s.file ?? "")
      .digest("hex")
      .slice(0, 32)}`;
  return `${source}:${(s.base_url ?? "").toLowerCase()}${s.group ? `#${s.group}` : ""}`;
}

/** A source failure as the user's error (400 on the field it is about). */
export function sourceRefusal(err: SourceError, source: ImportSourceName): DomainError {
  const field = isFileSource(source) ? "file" : /token|key|refused the/i.test(err.message) && !/address/i.test(err.message) ? "token" : "base_url";
  return invalid(field, err.message);
}

export class ImportJobs {
  constructor(private readonly deps: ImportJobsDeps) {}

  async target(owner: UserRow): Promise<ImportTarget> {
    const rows = await this.deps.db.selectFrom("domains").select("hostname").where("owner_id", "=", owner.id).where("status", "=", "verified").execute();
    return { owner, domains: new Set(rows.map((r) => r.hostname)), mainHost: this.deps.mainHost };
  }

  /**
   * The first rows as the import would map them, each through the checks the job will run (schema,
   * characters, destination, blocklist, alias, plan options and link count); nothing is written.
   */
  async preview(actor: UserRow, fields: ImportFields): Promise<PreviewReply> {
    requireActive(actor);
    const { source, settings } = checkFields(fields);
    let page;
    try {
      page = await this.deps.open(source, settings).page(null);
    } catch (err) {
      if (err instanceof SourceError) throw sourceRefusal(err, source);
      throw err;
    }
    const target = await this.target(actor);
    const rows = page.links.slice(0, PREVIEW_ROWS);
    const done = await importedBefore(
      this.deps.db,
      actor.id,
      sourceKey(source, settings),
      rows.map((r) => storable(r.source_id)),
    );
    const mapped = rows.map((r) => mapLink(r, target, this.deps.now()));
    const taken = await this.takenAliases(mapped);
    let room = await this.room(actor);
    const out: PreviewRow[] = [];
    for (const [i, r] of rows.entries()) {
      const m = mapped[i]!;
      const alias = m.input.alias ?? null;
      const notes = [...m.notes];
      const earlier = done.has(storable(r.source_id));
      const refused = earlier ? null : (refusalOf(r, m.input) ?? (await this.refusedByCreation(actor, m.input)));
      const aliasRefused = refused !== null && alias !== null && refused.code === "invalid_request" && (refused.details ?? []).some((d) => d.field === "alias");
      const generate = fields.on_taken === "generate";
      const isTaken = alias !== null && taken.has(`${m.domain}/${alias}`);
      let action: PreviewRow["action"] = "create";
      let code: string | null = null;
      if (earlier) [action, code] = ["skip", "already_imported"];
      else if (refused && !(aliasRefused && generate)) [action, code] = ["fail", refused.code];
      else if (aliasRefused) [action, code] = ["generate", refused!.code];
      else if (isTaken) [action, code] = [generate ? "generate" : "skip", "alias_taken"];
      if (refused) notes.push(reason(refused));
      if ((action === "create" || action === "generate") && room-- <= 0) {
        [action, code] = ["fail", "limit_reached"];
        notes.push(`the plan's ${planLimits(actor.plan).maxLinks} links are reached`);
      }
      out.push({
        line: i + 1,
        source_id: r.source_id,
        url: r.url,
        alias,
        short_url: action === "create" && alias ? shortUrl(this.deps.origin, m.domain, alias) : null,
        title: r.title ?? null,
        tags: m.input.tags ?? [],
        action,
        code,
        notes,
      });
    }
    return { status: "success", total: page.total ?? null, rows: out };
  }

  /** What the creation itself would refuse in the input (not the alias's availability or the count). */
  private async refusedByCreation(actor: UserRow, input: CreateLinkInput): Promise<DomainError | null> {
    try {
      await this.deps.links.check(actor, input);
      return null;
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
  }

  /** Links the owner's plan still allows. */
  private async room(actor: UserRow): Promise<number> {
    const row = await this.deps.db.selectFrom("link_counts").select("links").where("owner_id", "=", actor.id).executeTakeFirst();
    return planLimits(actor.plan).maxLinks - Number(row?.links ?? 0);
  }

  private async takenAliases(mapped: { domain: string; input: { alias?: string | null } }[]): Promise<Set<string>> {
    // Only aliases an engine can compare (a NUL fails the query on PostgreSQL; the gate refuses that line anyway).
    const aliases = mapped.flatMap((m) => (m.input.alias && !BAD_IN_TEXT.test(m.input.alias) ? [m.input.alias] : []));
    if (aliases.length === 0) return new Set();
    const rows = await this.deps.db.selectFrom("links").select(["domain", "alias"]).where("alias", "in", aliases).execute();
    return new Set(rows.map((r) => `${r.domain}/${r.alias}`));
  }

  async start(actor: UserRow, fields: ImportFields): Promise<ImportJob> {
    requireActive(actor);
    const { source, settings } = checkFields(fields);
    const now = this.deps.now();
    const id = newId();
    const row = {
      id,
      owner_id: actor.id,
      created_by: actor.id,
      source,
      base_url: settings.base_url ?? null,
      source_key: sourceKey(source, settings),
      source_group: settings.group ?? null,
      token_sealed: settings.token ? this.deps.box.seal(settings.token, id) : null,
      file: settings.file ?? null,
      on_taken: fields.on_taken ?? "skip",
      state: "queued",
      cursor: null,
      total: null,
      error: null,
      lease_until: null,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
      run_started_at: null,
    };
    await this.deps.db.insertInto("import_jobs").values(row).execute();
    this.deps.wake();
    return jobView(await this.row(actor, id), now);
  }

  async list(actor: UserRow): Promise<ImportJob[]> {
    const rows = await this.deps.db
      .selectFrom("import_jobs")
      .select(VIEW_COLUMNS)
      .where("owner_id", "=", actor.id)
      .orderBy("created_at", "desc")
      .limit(50)
      .execute();
    const now = this.deps.now();
    return rows.map((r) => jobView(r, now));
  }

  async get(actor: UserRow, id: string): Promise<ImportJob> {
    return jobView(await this.row(actor, id), this.deps.now());
  }

  private async row(actor: UserRow, id: string): Promise<JobRowView> {
    const row = await this.deps.db.selectFrom("import_jobs").select(VIEW_COLUMNS).where("id", "=", id).where("owner_id", "=", actor.id).executeTakeFirst();
    if (!row) throw new DomainError("not_found", "No such import");
    return row;
  }

  /** Stops a queued or running job after the page it is on; its links stay. */
  async cancel(actor: UserRow, id: string): Promise<ImportJob> {
    const job = await this.row(actor, id);
    if (job.state === "queued" || job.state === "running") {
      const now = this.deps.now();
      await this.deps.db
        .updateTable("import_jobs")
        .set({ state: "cancelled", finished_at: now, updated_at: now })
        .where("id", "=", id)
        .where("state", "in", ["queued", "running"])
        .execute();
    }
    return this.get(actor, id);
  }

  /** Queues a failed or cancelled job again: it continues from the last page it finished. */
  async resume(actor: UserRow, id: string): Promise<ImportJob> {
    requireActive(actor);
    const job = await this.row(actor, id);
    if (job.state !== "failed" && job.state !== "cancelled")
      throw new DomainError("conflict", `This import is ${job.state}: only a failed or cancelled import resumes`);
    const kept = isFileSource(job.source)
      ? (await this.deps.db.selectFrom("import_jobs").select("id").where("id", "=", id).where("file", "is not", null).executeTakeFirst()) !== undefined
      : job.token_sealed !== null;
    if (!kept) throw new DomainError("conflict", "This import's token or file is gone: start a new import (already imported links are skipped)");
    const now = this.deps.now();
    // The lease stays: a run still finishing its page lets the job go before it is claimed again.
    await this.deps.db
      .updateTable("import_jobs")
      .set({ state: "queued", error: null, finished_at: null, updated_at: now })
      .where("id", "=", id)
      .where("state", "in", ["failed", "cancelled"])
      .execute();
    this.deps.wake();
    return this.get(actor, id);
  }

  /** Failed or cancelled imports left alone for ABANDONED_MS lose their token and file (a new import skips what they created). */
  async forgetAbandoned(): Promise<number> {
    const r = await this.deps.db
      .updateTable("import_jobs")
      .set({ token_sealed: null, file: null })
      .where("state", "in", ["failed", "cancelled"])
      .where("updated_at", "<", this.deps.now() - ABANDONED_MS)
      .where((eb) => eb.or([eb("token_sealed", "is not", null), eb("file", "is not", null)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** The first `limit` failed lines of a job, in order (the CLI prints them). */
  async failures(actor: UserRow, id: string, limit: number): Promise<{ line: number; source_id: string; code: string; notes: string }[]> {
    await this.row(actor, id);
    const rows = await this.deps.db
      .selectFrom("import_items")
      .select(["line", "source_id", "code", "notes"])
      .where("job_id", "=", id)
      .where("status", "=", "failed")
      .orderBy("line")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ line: Number(r.line), source_id: r.source_id, code: r.code ?? "", notes: r.notes ?? "" }));
  }

  /** The first failed lines of the caller's import, with their code and words. */
  async failedLines(actor: UserRow, id: string): Promise<{ failed: FailedLine[]; more: boolean }> {
    await this.row(actor, id);
    const rows = await this.deps.db
      .selectFrom("import_items")
      .select(["line", "source_id", "url", "alias", "code", "notes"])
      .where("job_id", "=", id)
      .where("status", "=", "failed")
      .orderBy("line")
      .limit(FAILED_LINES_SHOWN + 1)
      .execute();
    const failed = rows
      .slice(0, FAILED_LINES_SHOWN)
      .map((r) => ({ line: Number(r.line), source_id: r.source_id, url: r.url, alias: r.alias, code: r.code ?? "internal", notes: r.notes ?? "" }));
    return { failed, more: rows.length > FAILED_LINES_SHOWN };
  }

  /** The report: one line per source link (created, skipped, failed with reasons), streamed. */
  async report(actor: UserRow, id: string): Promise<Readable> {
    await this.row(actor, id);
    const db = this.deps.db;
    const origin = this.deps.origin;
    async function* lines() {
      yield ["line", "source_id", "url", "alias", "short_url", "status", "code", "notes"];
      for (let after = 0; ;) {
        const page = await db.selectFrom("import_items").selectAll().where("job_id", "=", id).where("line", ">", after).orderBy("line").limit(1000).execute();
        for (const r of page)
          yield [
            r.line,
            r.source_id,
            r.url,
            r.alias ?? "",
            r.alias !== null && r.domain !== null && (r.status === "created" || r.code === "already_imported") ? shortUrl(origin, r.domain, r.alias) : "",
            r.status,
            r.code ?? "",
            r.notes ?? "",
          ];
        if (page.length < 1000) return;
        after = Number(page[page.length - 1]!.line);
      }
    }
    return Readable.from(lines()).pipe(stringify(CSV_OPTIONS));
  }
}
