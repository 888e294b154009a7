// Runs import jobs (docs/import.md, Jobs): an instance claims a queued job, or a running one whose
// holder stopped renewing its lease (a restart, a crash), and works through it page by page. A page's
// links, report lines, counts and the cursor of the next page are written in one transaction
// (import-page.ts), so a job resumes from the last page it finished and a page cut short left nothing.
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import { isDatabaseUnavailable } from "../storage/unavailable.js";
import { storable } from "../shared/bad-text.js";
import type { ImportJobRow } from "../storage/schema.js";
import type { SealedBox } from "../shared/secret-box.js";
import type { ImportTarget } from "./mapping.js";
import { type ImportLinkDeps, type ItemOutcome, importVisits, importedBefore, prepareLine } from "./import-link.js";
import { writePage } from "./import-page.js";
import type { Trx } from "../storage/owner-caps.js";
import { type ImportJobs, settingsOf } from "./import-jobs.js";
import { type ImportSource, type ImportSourceName, SourceError, type SourcePage, type SourceSettings } from "./source.js";

export interface ImportRunnerDeps extends ImportLinkDeps {
  box: SealedBox;
  jobs: ImportJobs;
  open: (source: ImportSourceName, settings: SourceSettings) => ImportSource;
  log: Logger;
  /** Waits between attempts at a page that failed for a transient reason (then the job fails, resumable). */
  retryDelaysMs?: number[];
  /**
   * SQLite: the click writer and the page's transaction share one write lock (a wait there blocks the event
   * loop), so each page first lets the writer finish and its visits are read before the next page. PostgreSQL
   * (false): a page's visits are read and written while the next page is created.
   */
  sharedWriteLock?: boolean;
}

/** How long a claim holds without renewal (each page renews it). */
const LEASE_MS = 60_000;
const SWEEP_MS = 3_600_000;
const POLL_MS = 2_000;
const RETRY_DELAYS_MS = [1_000, 3_000, 10_000];
/** Waits before a creation is tried again while the database cannot serve. */
const DATABASE_RETRY_MS = [500, 1_000, 2_000, 4_000, 8_000];
/**
 * Links of a page whose visits are read at once (Shlink: one request per link or more): the next links
 * are created while the source answers. Small, to stay polite to a self-hosted source.
 */
const VISIT_READS = 4;

export class ImportRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** When abandoned jobs' tokens and files were last cleared (ImportJobs.forgetAbandoned). */
  private swept = 0;

  constructor(private readonly deps: ImportRunnerDeps) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Looks for work now (a job was queued or resumed). */
  wake(): void {
    if (this.running || this.stopped) return;
    this.running = this.work()
      // A database that cannot serve now: the next poll tries again (the outage is reported elsewhere).
      .catch((err) => (isDatabaseUnavailable(err) ? undefined : this.deps.log.error({ err }, "import runner failed")))
      .finally(() => (this.running = null));
  }

  /** Finishes the page in hand, then lets the job go (another instance, or the next start, continues it). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Resolves when no job is being worked on here (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async work(): Promise<void> {
    if (this.deps.now() - this.swept >= SWEEP_MS) {
      this.swept = this.deps.now();
      await this.deps.jobs.forgetAbandoned();
    }
    // Stopped is checked before each claim: a claim made while stopping would hold the job for a lease.
    for (let job = this.stopped ? null : await this.claim(); job; job = this.stopped ? null : await this.claim()) {
      try {
        await this.run(job);
      } catch (err) {
        const unavailable = isDatabaseUnavailable(err);
        if (unavailable) this.deps.log.warn({ err, import: job.id }, "import stopped: the database could not serve");
        else this.deps.log.error({ err, import: job.id }, "import failed");
        const why = unavailable ? "the database could not serve for a while" : "an internal error";
        await this.finish(job.id, "failed", `the import stopped on ${why}; resume it to continue`);
      }
    }
  }

  private get db(): Db {
    return this.deps.db;
  }

  private async claim(): Promise<ImportJobRow | null> {
    const now = this.deps.now();
    const candidates = await this.db
      .selectFrom("import_jobs")
      .select("id")
      .where("state", "in", ["queued", "running"])
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("created_at")
      .limit(5)
      .execute();
    for (const { id } of candidates) {
      const r = await this.db
        .updateTable("import_jobs")
        .set((eb) => ({
          state: "running",
          lease_until: now + LEASE_MS,
          started_at: eb.fn.coalesce("started_at", eb.val(now)),
          run_started_at: now,
          run_read_base: eb.ref("read_count"),
          updated_at: now,
        }))
        .where("id", "=", id)
        .where("state", "in", ["queued", "running"])
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) return (await this.db.selectFrom("import_jobs").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
    }
    return null;
  }

  private async run(job: ImportJobRow): Promise<void> {
    const owner = await this.db.selectFrom("users").selectAll().where("id", "=", job.owner_id).executeTakeFirst();
    if (!owner || owner.status !== "active") return this.finish(job.id, "failed", "the account is not active");
    const settings = settingsOf(this.deps.box, job);
    if (job.token_sealed && settings.token === null)
      return this.finish(job.id, "failed", "the token cannot be read (SESSION_SECRET changed?): start a new import");
    const target = await this.deps.jobs.target(owner);
    const source = this.deps.open(job.source as ImportSourceName, settings);
    let cursor = job.cursor;
    let line = Number(job.lines);
    // PostgreSQL: a page's visits are read while the next page is created (awaited before the one after).
    let visits: Promise<void> = Promise.resolve();
    try {
      while (!this.stopped) {
        const state = await this.db.selectFrom("import_jobs").select("state").where("id", "=", job.id).executeTakeFirst();
        // Cancelled (or cancelled and resumed) meanwhile: let it go; a resumed job is claimed again from its cursor.
        if (state?.state !== "running") break;
        const page = await this.readPage(source, cursor);
        if (typeof page === "string") {
          await visits;
          return this.finish(job.id, "failed", page);
        }
        const items = await this.importPage(job, target, page, line);
        await visits;
        visits = this.importVisits(job.id, line, items, page);
        // Rejected: handled where it is awaited (next page, the end, or the finally below).
        visits.catch(() => undefined);
        if (this.deps.sharedWriteLock) await visits;
        line += items.length;
        cursor = page.next;
        if (cursor === null) {
          await visits;
          return this.finish(job.id, "done", null);
        }
      }
      await visits;
    } finally {
      await visits.catch(() => undefined);
    }
    await this.db.updateTable("import_jobs").set({ lease_until: null }).where("id", "=", job.id).execute();
  }

  /**
   * A page's lines: every check made first (nothing written), then the lines created, their report and
   * the job's cursor saved in one transaction (import-page.ts). Tried again while the database cannot serve.
   */
  private async importPage(job: ImportJobRow, target: ImportTarget, page: SourcePage, line: number): Promise<ItemOutcome[]> {
    // The click writer done with the last page's visits: on SQLite its write lock would otherwise hold
    // up the page's transaction (PostgreSQL writes both at once).
    if (this.deps.sharedWriteLock && this.deps.clicks.pending > 0) await this.deps.clicks.writeBuffered();
    const before = await importedBefore(
      this.db,
      target.owner.id,
      job.source_key,
      page.links.map((l) => storable(l.source_id)),
    );
    const lines = await this.patiently(() => Promise.all(page.links.map((src) => prepareLine(this.deps, target, job.on_taken, src, before))));
    const items = await this.patiently(() =>
      this.db.transaction().execute(async (trx) => {
        const written = await writePage(this.deps, trx, target, { sourceKey: job.source_key, onTaken: job.on_taken }, lines);
        await this.savePage(trx, job.id, line, written, page);
        return written;
      }),
    );
    await this.deps.links.announceCreated(items.flatMap((i) => (i.link ? [i.link] : [])));
    return items;
  }

  /**
   * The visits of a page's created links, VISIT_READS links read at once, after the page's commit (a
   * crash before they are all read loses the rest of that page's visits, never duplicates them); the
   * job's visit count and any line whose visits could not all be read updated after.
   */
  private async importVisits(id: string, line: number, items: ItemOutcome[], page: SourcePage): Promise<void> {
    const reading = new Set<Promise<void>>();
    const noted = new Set<number>();
    let visits = 0;
    let failure: { err: unknown } | null = null;
    try {
      for (const [k, item] of items.entries()) {
        if (!item.link) continue;
        const notes = item.notes.length;
        const read: Promise<void> = this.visitsOf(item, page.links[k]!)
          .then((n) => void (visits += n))
          .catch((err: unknown) => void (failure ??= { err }))
          .finally(() => {
            if (item.notes.length > notes) noted.add(k);
            reading.delete(read);
          });
        reading.add(read);
        if (reading.size >= VISIT_READS) await Promise.race(reading);
        if (failure) break;
      }
    } finally {
      await Promise.all(reading);
    }
    if (failure) throw (failure as { err: unknown }).err;
    if (visits === 0 && noted.size === 0) return;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("import_jobs")
        .set((eb) => ({ visit_count: eb("visit_count", "+", visits) }))
        .where("id", "=", id)
        .execute();
      for (const k of noted)
        await trx
          .updateTable("import_items")
          .set({ notes: storable(items[k]!.notes.join("; ")) })
          .where("job_id", "=", id)
          .where("line", "=", line + k + 1)
          .execute();
    });
  }

  /**
   * A link's creation, tried again while the database cannot serve (SQLite's write lock held past
   * busy_timeout by the click writer's large batches of imported visits, a PostgreSQL restart).
   */
  private async patiently<T>(fn: () => Promise<T>): Promise<T> {
    for (const delay of DATABASE_RETRY_MS) {
      try {
        return await fn();
      } catch (err) {
        if (!isDatabaseUnavailable(err) || this.stopped) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    return fn();
  }

  /** A page, retried on transient failures; the failure's message when it cannot be read. */
  private async readPage(source: ImportSource, cursor: string | null): Promise<SourcePage | string> {
    const delays = this.deps.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await source.page(cursor);
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        const delay = delays[attempt];
        if (!err.transient || delay === undefined || this.stopped) return err.message;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private async visitsOf(item: ItemOutcome, src: Parameters<typeof importVisits>[2]): Promise<number> {
    try {
      return await importVisits(this.deps, item.link!, src);
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      item.notes.push(`visits not all imported: ${err.message}`);
      return 0;
    }
  }

  /** The page's report lines, counts and the cursor of the next page, in the page's transaction. */
  private async savePage(trx: Trx, id: string, line: number, items: ItemOutcome[], page: SourcePage): Promise<void> {
    const now = this.deps.now();
    const n = (s: ItemOutcome["status"]) => items.filter((i) => i.status === s).length;
    {
      if (items.length > 0) {
        await trx
          .insertInto("import_items")
          // A source's text the engines cannot store (NUL: PostgreSQL) must not fail the page's report.
          .values(
            items.map((i, k) => ({
              job_id: id,
              line: line + k + 1,
              source_id: storable(i.source_id),
              url: storable(i.url),
              alias: i.alias === null ? null : storable(i.alias),
              domain: i.domain,
              status: i.status,
              code: i.code,
              notes: i.notes.length ? storable(i.notes.join("; ")) : null,
            })),
          )
          .onConflict((oc) => oc.columns(["job_id", "line"]).doNothing())
          .execute();
      }
      await trx
        .updateTable("import_jobs")
        .set((eb) => ({
          cursor: page.next,
          lines: line + items.length,
          total: page.total ?? null,
          read_count: eb("read_count", "+", items.length),
          created_count: eb("created_count", "+", n("created")),
          skipped_count: eb("skipped_count", "+", n("skipped")),
          failed_count: eb("failed_count", "+", n("failed")),
          lease_until: now + LEASE_MS,
          updated_at: now,
        }))
        .where("id", "=", id)
        .execute();
    }
  }

  /**
   * Ends a job. Its last page read is the end whatever happened meanwhile: a job cancelled (or cancelled
   * and resumed) while that page was worked on is done too (its cursor would otherwise start it over).
   */
  private async finish(id: string, state: "done" | "failed", error: string | null): Promise<void> {
    if (state === "done") await this.deps.clicks.flush();
    const now = this.deps.now();
    const ended = state === "done" ? { token_sealed: null, file: null } : {};
    await this.db
      .updateTable("import_jobs")
      .set({ state, error, finished_at: now, updated_at: now, lease_until: null, ...ended })
      .where("id", "=", id)
      .where("state", "in", state === "done" ? ["running", "cancelled", "queued"] : ["running"])
      .execute();
  }
}
