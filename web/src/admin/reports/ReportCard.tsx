// One abuse report in the operator's queue: reason, time, how many reports the link has, the link with its state,
// destination, owner, reporter and details, and the actions on an open report.
import type { AbuseReport, ReportState } from "@contract/reports";
import { LinkStateBadge } from "../../shared/link-state";
import { A, Alert, formatDateTime } from "../../shared/ui";
import { shortLabel } from "../common";

export const STATES: { value: ReportState; label: string }[] = [
  { value: "open", label: "Open" },
  { value: "dismissed", label: "Dismissed" },
  { value: "link_disabled", label: "Link disabled" },
  { value: "owner_banned", label: "Owner banned" },
];

const REASONS: Record<string, string> = { phishing: "Phishing", malware: "Malware", spam: "Spam", illegal: "Illegal content", other: "Other" };

export function stateLabel(s: string): string {
  return STATES.find((x) => x.value === s)?.label ?? s;
}

/** The reported short link as text, also once the link is deleted (the report keeps domain and alias). */
export function reportedShort(r: AbuseReport): string {
  return r.link ? shortLabel(r.link.short_url) : `${r.domain || window.location.host}/${r.alias}`;
}

// eslint-disable-next-line max-lines-per-function -- one report's fields and its actions, read together as the card shows them.
export function ReportCard(props: { report: AbuseReport; busy: boolean; error?: string; onDismiss: () => void; onDisable: () => void; onBan: () => void }) {
  const { report: r, busy, error, onDismiss, onDisable, onBan } = props;
  return (
    <li className="card report" data-testid="report-row" data-report-id={r.id}>
      <div className="report-head">
        <span className="badge badge-fail" data-testid="report-reason">
          {REASONS[r.reason] ?? r.reason}
        </span>
        <span className="muted small">{formatDateTime(r.created_at)}</span>
        {r.reports_for_link > 1 ? (
          <span className="badge badge-warning" data-testid="report-count">
            {r.reports_for_link} reports for this link
          </span>
        ) : (
          <span className="muted small" data-testid="report-count">
            1 report for this link
          </span>
        )}
        {r.state !== "open" ? (
          <span className="badge" data-testid="report-state">
            {stateLabel(r.state)}
            {r.resolved_by_email ? ` by ${r.resolved_by_email}` : ""}
            {r.resolved_at ? `, ${formatDateTime(r.resolved_at)}` : ""}
          </span>
        ) : null}
      </div>

      <div className="report-body">
        <dl className="report-facts">
          <div>
            <dt>Link</dt>
            <dd>
              {r.link ? (
                <>
                  <a href={r.link.short_url} target="_blank" rel="noopener noreferrer" className="cell-wrap" data-testid="report-link">
                    {reportedShort(r)}
                  </a>{" "}
                  <LinkStateBadge link={r.link} withReason={false} />
                </>
              ) : (
                <>
                  <span className="cell-wrap" data-testid="report-link">
                    {reportedShort(r)}
                  </span>{" "}
                  <span className="badge badge-muted">Deleted</span>
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Destination</dt>
            <dd className="cell-wrap" data-testid="report-destination">
              {r.link?.url ?? r.url}
            </dd>
          </div>
          <div>
            <dt>Owner</dt>
            <dd className="cell-wrap" data-testid="report-owner">
              {r.link?.owner_email ? (
                <A to={`/app/admin/accounts?q=${encodeURIComponent(r.link.owner_email)}`}>{r.link.owner_email}</A>
              ) : (
                <span className="muted">—</span>
              )}
            </dd>
          </div>
          <div>
            <dt>Reporter</dt>
            <dd className="cell-wrap" data-testid="report-reporter">
              {r.source === "feed" ? "A threat feed" : (r.reporter_email ?? <span className="muted">anonymous</span>)}
            </dd>
          </div>
        </dl>
        {r.details ? (
          <blockquote className="report-details" data-testid="report-details">
            {r.details}
          </blockquote>
        ) : (
          <p className="muted small">No details given.</p>
        )}
      </div>

      {error ? <Alert testId="report-error">{error}</Alert> : null}
      {r.state === "open" ? (
        <div className="row gap report-actions">
          <button type="button" className="btn btn-secondary btn-sm" disabled={busy} data-testid="report-dismiss" onClick={onDismiss}>
            {busy ? "Working…" : "Dismiss"}
          </button>
          {r.link ? (
            <>
              <button type="button" className="btn btn-danger-ghost btn-sm" disabled={!!r.link.disabled} data-testid="report-disable-link" onClick={onDisable}>
                {r.link.disabled ? "Link already disabled" : "Disable link…"}
              </button>
              {r.link.owner_id ? (
                <button type="button" className="btn btn-danger btn-sm" data-testid="report-ban-owner" onClick={onBan}>
                  Ban owner…
                </button>
              ) : null}
            </>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
