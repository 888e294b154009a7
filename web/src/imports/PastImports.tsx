// The account's imports, newest first: source, when, state and counts, each to open (its progress or result)
// and, once finished, its report.
import { EmptyState, Spinner, formatDateTime } from "../shared/ui";
import { ListError } from "../shared/lists";
import { importsApi } from "./imports-api";
import type { ImportJob } from "@contract/imports";
import { ACTIVE_IMPORT_STATES } from "@contract/tables";
import { STATE_LABELS, sourceLabel } from "./sources";
import { formatNumber } from "../shared/numbers";

interface Props {
  jobs: ImportJob[] | null;
  error: string | null;
  onRetry: () => void;
  openId: string | null;
  onOpen: (id: string) => void;
}

export function PastImports({ jobs, error, onRetry, openId, onOpen }: Props) {
  return (
    <section className="card card-flush import-history" data-testid="import-history">
      <h2 className="import-history-title">Past imports</h2>
      {error ? <ListError what="your imports" error={error} onRetry={onRetry} testId="import-history-error" /> : null}
      {jobs === null ? (
        error ? null : (
          <Spinner label="Loading your imports…" />
        )
      ) : jobs.length === 0 ? (
        <EmptyState title="No imports yet" testId="import-history-empty" icon="imports">
          <p className="muted">Imports you start show up here with their counts and report.</p>
        </EmptyState>
      ) : (
        <ul className="import-history-list">
          {jobs.map((j) => (
            <HistoryItem key={j.id} job={j} open={j.id === openId} onOpen={() => onOpen(j.id)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function HistoryItem({ job, open, onOpen }: { job: ImportJob; open: boolean; onOpen: () => void }) {
  const st = STATE_LABELS[job.state];
  const { created, skipped, failed, visits } = job.counts;
  return (
    <li className={`import-history-item${open ? " import-history-open" : ""}`} data-testid="import-history-item" data-state={job.state}>
      <div className="import-history-main">
        <strong>{sourceLabel(job.source)}</strong>
        {job.base_url ? <span className="muted small truncate import-history-base">{job.base_url}</span> : null}
        <span className="muted small">{formatDateTime(job.created_at)}</span>
      </div>
      <span className={`badge ${st.badge}`}>{st.label}</span>
      <span className="small import-history-counts" data-testid="import-history-counts">
        {formatNumber(created)} created · {formatNumber(skipped)} skipped · {formatNumber(failed)} failed
        {visits ? ` · ${formatNumber(visits)} visits` : ""}
      </span>
      <span className="row gap-sm import-history-actions">
        {(ACTIVE_IMPORT_STATES as readonly string[]).includes(job.state) ? null : (
          <a className="btn btn-secondary btn-sm" href={importsApi.reportHref(job.id)} download data-testid="import-history-report">
            Report
          </a>
        )}
        <button type="button" className="btn btn-secondary btn-sm" onClick={onOpen} disabled={open} aria-pressed={open} data-testid="import-history-open">
          {open ? "Shown" : "Show"}
        </button>
      </span>
    </li>
  );
}
