// One import job as it runs: a progress bar with the counts, rate and time left, Cancel; at the end its state,
// the report to download, and Resume for a failed or cancelled job.
import { useEffect } from "react";
import { Alert, formatDateTime } from "../shared/ui";
import { useSubmit } from "../shared/submit";
import { importsApi } from "./imports-api";
import type { ImportJob } from "@contract/imports";
import { ACTIVE_IMPORT_STATES } from "@contract/tables";
import { SOURCES, STATE_LABELS, type SourceInfo, formatDuration, formatEta, jobFraction, sourceLabel } from "./sources";
import type { SourceName } from "./imports-api";
import { useJob } from "./use-job";
import { FailedLines } from "./FailedLines";
import { formatNumber } from "../shared/numbers";

export function JobProgress({ id, initial, onState }: { id: string; initial: ImportJob | null; onState: (job: ImportJob) => void }) {
  const { job, error, replace, retry } = useJob(id, initial);
  const { busy, error: actionError, run: act } = useSubmit(async (fn: (id: string) => Promise<ImportJob>) => replace(await fn(id)));

  // The list of past imports shows the state too: told whenever it changes.
  const state = job?.state;
  useEffect(() => {
    if (job) onState(job);
  }, [state, job?.id]);

  if (!job) {
    return (
      <section className="card import-job" data-testid="import-job">
        {error ? (
          <Alert testId="import-job-error">
            This import could not be read: {error}{" "}
            <button type="button" className="btn-link" onClick={retry}>
              Try again
            </button>
          </Alert>
        ) : (
          <p className="loading" role="status" data-testid="import-job-loading">
            <span className="spinner" aria-hidden="true" /> Reading the import…
          </p>
        )}
      </section>
    );
  }

  const active = (ACTIVE_IMPORT_STATES as readonly string[]).includes(job.state);
  const st = STATE_LABELS[job.state];
  return (
    <section className="card import-job" data-testid="import-job" data-state={job.state} aria-busy={active}>
      <div className="row gap space-between import-job-head">
        <h2>
          Import from {sourceLabel(job.source)}{" "}
          <span className={`badge ${st.badge}`} data-testid="import-job-state">
            {st.label}
          </span>
        </h2>
        <span className="muted small" data-testid="import-job-times">
          Started {formatDateTime(job.started_at ?? job.created_at)}
          {job.finished_at ? `, ended ${formatDateTime(job.finished_at)}` : ""}
        </span>
      </div>
      <ProgressBar job={job} />
      <JobCounts job={job} />
      {job.error ? <Alert testId="import-job-failure">{job.error}</Alert> : null}
      {!active && job.counts.failed > 0 ? <FailedLines id={job.id} count={job.counts.failed} /> : null}
      {error ? (
        <Alert kind="warning" testId="import-job-poll-error">
          The latest progress could not be read ({error}); still trying.
        </Alert>
      ) : null}
      {actionError ? <Alert testId="import-job-action-error">{actionError}</Alert> : null}
      <div className="form-actions import-job-actions">
        {active ? (
          <button type="button" className="btn btn-secondary" disabled={busy} onClick={() => void act(importsApi.cancel)} data-testid="import-cancel">
            {busy ? "Cancelling…" : "Cancel import"}
          </button>
        ) : null}
        {job.state === "failed" || job.state === "cancelled" ? (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void act(importsApi.resume)} data-testid="import-resume">
            {busy ? "Resuming…" : "Resume"}
          </button>
        ) : null}
        {!active ? (
          <a className="btn btn-secondary" href={importsApi.reportHref(job.id)} download data-testid="import-report">
            Download report (CSV)
          </a>
        ) : null}
      </div>
    </section>
  );
}

function ProgressBar({ job }: { job: ImportJob }) {
  const fraction = jobFraction(job);
  const pct = fraction === null ? null : Math.round(fraction * 100);
  const label =
    job.total === null ? `${formatNumber(job.counts.read)} read (total unknown)` : `${formatNumber(job.counts.read)} of ${formatNumber(job.total)} read`;
  return (
    <div className="import-progress">
      <div
        className={`import-bar${pct === null ? " import-bar-unknown" : ""} import-bar-${job.state}`}
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-valuetext={label}
        data-testid="import-progress"
      >
        <span style={{ width: pct === null ? undefined : `${pct}%` }} />
      </div>
      <p className="import-progress-text small">
        <span data-testid="import-progress-text">{label}</span>
        {pct !== null ? <strong> · {pct}%</strong> : null}
      </p>
    </div>
  );
}

/** Why a source without visits shows none: its click totals came along, beside each link's clicks. */
export function visitsNote(source: string): string | null {
  const info = SOURCES[source as SourceName] as SourceInfo | undefined;
  if (!info || info.keepsVisits) return null;
  return `No single visits: ${info.label} gives click totals. Each link's total came along and shows beside its clicks as “imported”.`;
}

function JobCounts({ job }: { job: ImportJob }) {
  const active = (ACTIVE_IMPORT_STATES as readonly string[]).includes(job.state);
  const note = visitsNote(job.source);
  const items: [string, string, number | string][] = [
    ["read", "Read", job.counts.read],
    ["created", "Created", job.counts.created],
    ["skipped", "Skipped", job.counts.skipped],
    ["failed", "Failed", job.counts.failed],
    // A source without visits has no such figure: "—", not a 0 that reads as "no clicks came along".
    ["visits", "Visits", note ? "—" : job.counts.visits],
  ];
  return (
    <>
      <dl className="import-counts" data-testid="import-counts">
        {items.map(([key, label, value]) => (
          <div key={key} className={`import-count import-count-${key}${typeof value === "number" && value > 0 ? " import-count-some" : ""}`}>
            <dt>{label}</dt>
            <dd data-testid={`import-count-${key}`}>{typeof value === "number" ? formatNumber(value) : value}</dd>
          </div>
        ))}
        <div className="import-count">
          <dt>Rate</dt>
          <dd data-testid="import-rate">{active || job.rate > 0 ? `${job.rate.toLocaleString(undefined, { maximumFractionDigits: 1 })}/s` : "—"}</dd>
        </div>
        <div className="import-count">
          <dt>{active ? "Time left" : "Took"}</dt>
          <dd data-testid="import-eta">{active ? formatEta(job.eta_seconds) : formatDuration(job)}</dd>
        </div>
      </dl>
      {note ? (
        <p className="muted small" data-testid="import-visits-note">
          {note}
        </p>
      ) : null}
    </>
  );
}
