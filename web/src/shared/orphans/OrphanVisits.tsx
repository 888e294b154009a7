// Orphan visits (docs/orphan-visits.md): requests that matched no link, per day, the most visited missing
// paths with "Create this alias", referrers and devices. The operator console shows every host's, the
// domains page each domain's own.
import { useEffect, useState } from "react";
import type { OrphanReport } from "@contract/orphans";
import { A, DataTable, Spinner, errorMessage } from "../ui";
import { ListError } from "../lists";
import "./orphans.css";
import { formatNumber } from "../numbers";

const n = (v: number) => formatNumber(v);

/** The create page with the missing alias (and its custom domain) filled in. */
export function createAliasPath(alias: string, host: string | null): string {
  const q = new URLSearchParams({ alias });
  if (host) q.set("domain", host);
  return `/app/links/new?${q}`;
}

function DayBars({ days }: { days: OrphanReport["by_day"] }) {
  const max = Math.max(1, ...days.map((d) => d.visits));
  return (
    <div className="orphan-bars" role="img" aria-label={`Orphan visits per day, the last ${days.length} days`}>
      {days.map((d) => (
        <span key={d.day} className="orphan-bar" style={{ height: `${Math.max(2, (d.visits / max) * 100)}%` }} title={`${d.day}: ${n(d.visits)}`} />
      ))}
    </div>
  );
}

function Paths({ report, showHost }: { report: OrphanReport; showHost: boolean }) {
  return (
    <DataTable className="table orphan-table" testId="orphan-paths" frame="none" columns={["Missing path", "Visits"]} actions>
      {report.top_paths.map((p) => (
        <tr key={`${p.host ?? ""}${p.path}`} data-testid="orphan-path-row">
          <td className="cell-url">
            {showHost ? <span className="orphan-host muted small">{p.host ?? "main host"}</span> : null}
            <code className="truncate" title={p.path}>
              {p.path}
            </code>
          </td>
          <td className="num">{n(p.visits)}</td>
          <td className="orphan-action">
            {p.alias ? (
              <A to={createAliasPath(p.alias, p.host)} className="btn btn-secondary btn-sm" testId="orphan-create">
                Create this alias
              </A>
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function Shares({ title, rows, testId }: { title: string; rows: { label: string; visits: number }[]; testId: string }) {
  return (
    <div className="orphan-shares" data-testid={testId}>
      <h3>{title}</h3>
      <ul>
        {rows.map((r) => (
          <li key={r.label}>
            <span>{r.label}</span>
            <span className="num">{n(r.visits)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** `load`: the report's call (the operator's or a domain's); `showHost`: a column per host (operator). */
export function OrphanVisits({ load, showHost, testId = "orphan-visits" }: { load: () => Promise<OrphanReport>; showHost: boolean; testId?: string }) {
  const [report, setReport] = useState<OrphanReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (r) => live && setReport(r),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [load, version]);
  if (error) return <ListError what="orphan visits" error={error} onRetry={() => setVersion((v) => v + 1)} testId="orphan-error" />;
  if (!report) return <Spinner label="Loading orphan visits…" />;
  return (
    <div className="orphan-visits" data-testid={testId}>
      <p className="orphan-total">
        <strong data-testid="orphan-total">{n(report.total)}</strong> requests matched no link in the last {report.days} days
      </p>
      {report.total === 0 ? (
        <p className="placeholder" data-testid="orphan-empty">
          No visits to missing addresses: every request found its link.
        </p>
      ) : (
        <>
          <DayBars days={report.by_day} />
          <Paths report={report} showHost={showHost} />
          <div className="orphan-split">
            <Shares title="Referrers" testId="orphan-referrers" rows={report.referrers.map((r) => ({ label: r.referrer_host, visits: r.visits }))} />
            <Shares title="Devices" testId="orphan-devices" rows={report.devices.map((d) => ({ label: d.device, visits: d.visits }))} />
          </div>
        </>
      )}
    </div>
  );
}
