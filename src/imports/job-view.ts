// An import job as the API shows it (docs/import.md, Jobs): the columns read for it (never the file) and its view.
import { iso } from "../shared/clock.js";
import type { ImportJobRow } from "../storage/schema.js";
import type { ImportJob } from "../contract/imports.js";

/** A job's columns but the uploaded file (up to 20 MB: read by the runner alone). */
export const VIEW_COLUMNS = [
  "id",
  "owner_id",
  "created_by",
  "source",
  "base_url",
  "source_key",
  "source_group",
  "token_sealed",
  "on_taken",
  "state",
  "cursor",
  "lines",
  "total",
  "read_count",
  "created_count",
  "skipped_count",
  "failed_count",
  "visit_count",
  "error",
  "lease_until",
  "created_at",
  "started_at",
  "finished_at",
  "updated_at",
  "run_started_at",
  "run_read_base",
] as const satisfies readonly (keyof ImportJobRow)[];
export type JobRowView = Omit<ImportJobRow, "file">;

/** A job as the API shows it: counts, the current run's rate and the time left at that rate. */
export function jobView(job: JobRowView, now: number): ImportJob {
  const read = Number(job.read_count);
  const runRead = read - Number(job.run_read_base);
  const seconds = job.run_started_at === null ? 0 : (now - Number(job.run_started_at)) / 1000;
  const rate = job.state === "running" && seconds > 0 ? runRead / seconds : 0;
  const total = job.total === null ? null : Number(job.total);
  return {
    id: job.id,
    source: job.source,
    base_url: job.base_url,
    state: job.state as ImportJob["state"],
    on_taken: job.on_taken,
    total,
    counts: { read, created: Number(job.created_count), skipped: Number(job.skipped_count), failed: Number(job.failed_count), visits: Number(job.visit_count) },
    rate: Math.round(rate * 10) / 10,
    eta_seconds: total !== null && rate > 0 ? Math.max(0, Math.ceil((total - read) / rate)) : null,
    error: job.error,
    working: job.lease_until !== null && Number(job.lease_until) > now,
    created_at: iso(Number(job.created_at)),
    started_at: iso(job.started_at === null ? null : Number(job.started_at)),
    finished_at: iso(job.finished_at === null ? null : Number(job.finished_at)),
    updated_at: iso(Number(job.updated_at)),
  };
}
