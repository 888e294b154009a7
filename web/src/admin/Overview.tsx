// Operator console, overview: accounts, links, clicks, the week's top links, reports waiting and the service's health,
// link checks among it (links with a broken destination, destinations due for a check).
import { planName } from "../shared/plan-gate";
import { useEffect, useState } from "react";
import { adminApi } from "./admin-api";
import type { AdminOverview } from "@contract/admin";
import { A, DataTable, Spinner, errorMessage, useTitle } from "../shared/ui";
import { Figure, shortLabel } from "./common";
import { ListError } from "../shared/lists";
import { PLANS } from "@contract/plans";
import { OrphanVisits } from "../shared/orphans/OrphanVisits";
import { formatNumber } from "../shared/numbers";

function n(v: number): string {
  return formatNumber(v);
}

/** "3.2 s", "450 ms", "2 min" */
function age(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

// eslint-disable-next-line max-lines-per-function -- one dashboard of figures, each a few lines of markup read together.
export function AdminOverviewPage() {
  useTitle("Operator console");
  const [data, setData] = useState<AdminOverview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    setError(null);
    adminApi.overview().then(
      (d) => live && setData(d),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [version]);

  const head = (
    <div className="page-head">
      <div>
        <h1>Overview</h1>
        <p className="muted">The whole service at a glance. Click counts are UTC days.</p>
      </div>
      <button type="button" className="btn btn-secondary btn-sm" onClick={() => setVersion((v) => v + 1)} data-testid="overview-refresh">
        Refresh
      </button>
    </div>
  );

  if (error)
    return (
      <>
        {head}
        <ListError what="the overview" error={error} onRetry={() => setVersion((v) => v + 1)} testId="overview-error" />
      </>
    );
  if (!data)
    return (
      <>
        {head}
        <Spinner label="Loading the overview…" />
      </>
    );

  const h = data.health;
  const checks = data.link_checks;
  const writerLate = h.click_writer.oldest_ms > 10_000;
  return (
    <>
      {head}
      <div className="stat-tiles admin-tiles" data-testid="overview">
        <Figure label="Accounts" value={n(data.accounts.total)} testId="overview-accounts">
          {n(data.accounts.active)} active · <span className={data.accounts.suspended ? "text-warning" : ""}>{n(data.accounts.suspended)} suspended</span>
        </Figure>
        <Figure label="Links" value={n(data.links.total)} testId="overview-links">
          {n(data.links.disabled)} disabled by an operator
          {checks.checks_enabled ? (
            <>
              {" · "}
              <span className={checks.links_broken ? "text-warning" : ""} data-testid="overview-links-broken">
                {n(checks.links_broken)} broken
              </span>
            </>
          ) : null}
        </Figure>
        <Figure label="Clicks today" value={n(data.clicks.today)} testId="overview-clicks-today">
          {n(data.clicks.week)} in the last 7 days
        </Figure>
        <div className={`card tile admin-tile${data.reports_open ? " tile-attention" : ""}`} data-testid="overview-reports">
          <p className="tile-label">Reports waiting</p>
          <p className="tile-value" data-testid="overview-reports-value">
            {n(data.reports_open)}
          </p>
          <A to="/app/admin/reports" className="small" testId="overview-reports-link">
            Open the queue →
          </A>
        </div>
      </div>

      <div className="admin-columns">
        <section className="card section" aria-labelledby="h-plans" data-testid="overview-plans">
          <h2 id="h-plans">Accounts by plan</h2>
          <dl className="facts facts-plans">
            {PLANS.map((p) => (
              <div key={p}>
                <dt>{planName(p)}</dt>
                <dd data-testid={`overview-plan-${p}`}>
                  <A to={`/app/admin/accounts?plan=${p}`}>{n(data.accounts.by_plan[p] ?? 0)}</A>
                </dd>
              </div>
            ))}
          </dl>
        </section>

        <section className="card section" aria-labelledby="h-health" data-testid="overview-health">
          <h2 id="h-health">Health</h2>
          <ul className="health-list">
            <li>
              <span>Database</span>
              {h.database === "ok" ? (
                <span className="badge badge-ok" data-testid="health-database">
                  OK
                </span>
              ) : (
                <span className="badge badge-fail" data-testid="health-database">
                  Error
                </span>
              )}
            </li>
            <li>
              <span>Click writer</span>
              <span data-testid="health-click-writer" className={writerLate ? "text-warning" : ""}>
                {n(h.click_writer.pending)} pending{h.click_writer.pending > 0 ? `, oldest ${age(h.click_writer.oldest_ms)}` : ""}
                {h.click_writer.journal_only > 0 ? ` · ${n(h.click_writer.journal_only)} on disk only` : ""}
                {h.click_writer.dropped > 0 ? <span className="text-warning"> · {n(h.click_writer.dropped)} dropped</span> : null}
              </span>
            </li>
            <li>
              <span>Webhook queue</span>
              <span data-testid="health-webhooks">
                {n(h.webhook_queue.queued)} queued · <span className={h.webhook_queue.dropped ? "text-warning" : ""}>{n(h.webhook_queue.dropped)} dropped</span>
              </span>
            </li>
            <li>
              <span>Link checks</span>
              <span
                data-testid="health-link-checks"
                title="Destinations of links: due for a check now, broken (three failed checks in a row), failing (one or two)"
              >
                {checks.checks_enabled ? (
                  <>
                    {n(checks.due)} due now · <span className={checks.destinations_broken ? "text-warning" : ""}>{n(checks.destinations_broken)} broken</span> ·{" "}
                    {n(checks.destinations_failing)} failing
                  </>
                ) : (
                  "Off (LINK_CHECKS)"
                )}
              </span>
            </li>
            <li>
              <span>Blocklist</span>
              <span data-testid="health-blocklist">
                <A to="/app/admin/blocklist">
                  {n(data.blocklist.console)} from the console · {n(data.blocklist.file)} from the file
                </A>
              </span>
            </li>
          </ul>
        </section>
      </div>

      <section className="card section" aria-labelledby="h-top" data-testid="overview-top-links">
        <h2 id="h-top">Top links this week</h2>
        <DataTable
          className="table admin-table"
          frame="none"
          columns={["Short link", "Destination", "Owner", { label: "Clicks", className: "num" }]}
          empty={
            <p className="placeholder" data-testid="overview-top-empty">
              No clicks in the last 7 days.
            </p>
          }
        >
          {data.top_links.map((l) => (
            <tr key={l.id} data-testid="top-link-row">
              <td className="cell-wrap">
                <a href={l.short_url} target="_blank" rel="noopener noreferrer">
                  {shortLabel(l.short_url)}
                </a>
              </td>
              <td className="cell-url">
                <div className="truncate" title={l.url}>
                  {l.url}
                </div>
              </td>
              <td className="cell-wrap">
                {l.owner_email ? (
                  <A to={`/app/admin/links?owner=${encodeURIComponent(l.owner_email)}`}>{l.owner_email}</A>
                ) : (
                  <span className="muted">signed out</span>
                )}
              </td>
              <td className="num">{n(l.clicks)}</td>
            </tr>
          ))}
        </DataTable>
      </section>

      <section className="card section" aria-labelledby="h-orphans" data-testid="overview-orphans">
        <h2 id="h-orphans">Orphan visits</h2>
        <p className="muted small">Requests to this service and its custom domains that matched no link: typos, old printed links, scanners.</p>
        <OrphanVisits load={adminApi.orphanVisits} showHost />
      </section>
    </>
  );
}
