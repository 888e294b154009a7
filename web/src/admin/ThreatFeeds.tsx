// Operator console, threat feeds (docs/operator.md, Threat feeds): each THREAT_FEEDS source as this instance holds
// it (rows, sites and addresses listed, skipped rows, the last read or its error), and "Reload now".
import { useEffect, useState } from "react";
import { adminApi } from "./admin-api";
import type { ThreatFeedStatus } from "@contract/admin";
import { Alert, DataTable, errorMessage, formatDateTime } from "../shared/ui";
import { formatNumber } from "../shared/numbers";

const FORMAT = { urlhaus: "URLhaus", phishtank: "PhishTank" } as const;

export function ThreatFeeds() {
  const [feeds, setFeeds] = useState<ThreatFeedStatus[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    adminApi.threatFeeds().then(setFeeds, (e: unknown) => setError(errorMessage(e)));
  }, []);
  const reload = async () => {
    setBusy(true);
    setError(null);
    try {
      setFeeds(await adminApi.reloadThreatFeeds());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card section" aria-labelledby="h-feeds" data-testid="threat-feeds">
      <div className="section-head">
        <h2 id="h-feeds">Threat feeds</h2>
        {feeds && feeds.length > 0 ? (
          <button type="button" className="btn btn-secondary btn-sm" onClick={reload} disabled={busy} data-testid="threat-feeds-reload">
            {busy ? "Reading…" : "Reload now"}
          </button>
        ) : null}
      </div>
      {error ? <Alert testId="threat-feeds-error">{error}</Alert> : null}
      {feeds === null ? (
        error ? null : (
          <p className="muted small">Loading…</p>
        )
      ) : (
        <DataTable
          frame="none"
          className="table admin-table"
          testId="threat-feeds-table"
          caption="Threat feeds"
          columns={["Feed", "Source", { label: "Sites", className: "num" }, { label: "Addresses", className: "num" }, "Last read"]}
          empty={
            <p className="muted" data-testid="threat-feeds-none">
              No feed is configured. Set <code>THREAT_FEEDS</code> to URLhaus or PhishTank CSV files or addresses to refuse and block the destinations they
              list.
            </p>
          }
        >
          {feeds.map((f) => (
            <tr key={`${f.format}:${f.source}`} data-testid="threat-feed-row">
              <td>{FORMAT[f.format]}</td>
              <td className="cell-wrap">
                <code>{f.source}</code>
              </td>
              <td className="num">{formatNumber(f.hosts)}</td>
              <td className="num">{formatNumber(f.urls)}</td>
              <td className="cell-wrap">
                {f.loaded_at ? formatDateTime(f.loaded_at) : "Never"}
                {f.skipped_rows ? (
                  <span className="muted small">
                    {" "}
                    · {formatNumber(f.skipped_rows)} {f.skipped_rows === 1 ? "row" : "rows"} skipped
                  </span>
                ) : null}
                {f.error ? (
                  <span className="text-warning small" data-testid="threat-feed-error">
                    {" "}
                    · Not read: {f.error} (the last good entries are kept)
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
