// Account analytics: every link of the user (or of a team owner, for a member) over a period in a time zone, with
// totals and their change, the chart, top links, Link vs QR, the breakdowns, filters and CSV of what is shown.
import { useEffect, useState } from "react";
import type { Analytics } from "@contract/analytics";
import { ApiError } from "../shared/api";
import { useSession } from "../shared/session";
import { A, Alert, EmptyState, Spinner, errorMessage, useTitle } from "../shared/ui";
import { PlanGate, can } from "../shared/plan-gate";
import { ChartCard } from "../shared/charts/SeriesChart";
import { Breakdowns, SourcesPanel, wideGrid } from "../shared/charts/Breakdowns";
import { RangeControls } from "../shared/charts/RangeControls";
import { Totals } from "../shared/charts/Totals";
import { queryString, usePeriod } from "../shared/charts/period";
import { ShareStatsButton } from "../shared/ShareStats";
import { analyticsApi, type AnalyticsParams } from "./analytics-api";
import { useAnalyticsFilters, withFilters } from "./filters";
import { AnalyticsFilterBar } from "./FilterBar";
import { TopLinks } from "./TopLinks";
import { ConversionTiles } from "../shared/charts/Conversions";
import "./analytics.css";

type State = { kind: "loading" } | { kind: "ready"; data: Analytics } | { kind: "gated" } | { kind: "error"; message: string };

/** The answer of the query, or why there is none (a plan without account analytics answers 403 plan_required). */
function useAnalytics(query: AnalyticsParams, ownGated: boolean, reload: number): [State, Analytics | null] {
  const queryKey = queryString(query);
  const [state, setState] = useState<State>({ kind: "loading" });
  const [last, setLast] = useState<Analytics | null>(null);
  useEffect(() => {
    if (ownGated) return setState({ kind: "gated" });
    let live = true;
    setState({ kind: "loading" });
    analyticsApi
      .read(query)
      .then((data) => {
        if (!live) return;
        setState({ kind: "ready", data });
        setLast(data);
      })
      .catch((e: unknown) => {
        if (!live) return;
        setLast(null);
        setState(e instanceof ApiError && e.code === "plan_required" ? { kind: "gated" } : { kind: "error", message: errorMessage(e) });
      });
    return () => {
      live = false;
    };
  }, [queryKey, ownGated, reload]);
  return [state, last];
}

export function AnalyticsPage() {
  useTitle("Analytics");
  const { user } = useSession();
  const period = usePeriod();
  const { filters, set } = useAnalyticsFilters();
  const query = withFilters(period.params, filters);
  // The user's own links on a plan without account analytics: no request to know the answer.
  const ownGated = !filters.owner && !!user && !can(user.plan, "account_analytics");
  const [reload, setReload] = useState(0);
  const [state, last] = useAnalytics(query, ownGated, reload);
  const shown = state.kind === "ready" ? state.data : state.kind === "loading" ? last : null;

  return (
    <div className="stats-page analytics-page">
      <div className="page-head">
        <div>
          <h1>Analytics</h1>
          <p className="muted">{filters.owner ? "A team owner's links" : "All your links"}, together.</p>
        </div>
        {shown ? (
          <div className="head-actions">
            <A to="/app/live" className="btn btn-secondary" testId="analytics-live">
              <span className="live-mark" aria-hidden="true" />
              Live
            </A>
            <a className="btn btn-secondary" href={analyticsApi.csvHref(query)} download data-testid="analytics-csv">
              Download CSV
            </a>
            {/* One tag's links: shareable as a page of their own (a team owner's, by their plan; docs/sharing.md). */}
            {filters.tag && !filters.link && !filters.domain && (filters.owner || can(user?.plan ?? "free", "shares")) ? (
              <ShareStatsButton target={{ tag: filters.tag }} owner={filters.owner || null} />
            ) : null}
          </div>
        ) : null}
      </div>
      <AnalyticsFilterBar filters={filters} set={set} ownerOnly={state.kind === "gated"} />
      {state.kind === "gated" ? null : <RangeControls period={period} shown={shown} />}

      {state.kind === "gated" ? (
        <section className="card">
          <PlanGate feature="Analytics across all links" capability="account_analytics" testId="analytics-gate" />
          {filters.owner ? <p className="muted small">This team owner's plan decides: analytics of their links need their plan to have it.</p> : null}
        </section>
      ) : null}
      {state.kind === "error" ? (
        <Alert testId="analytics-error">
          Could not load the analytics: {state.message}{" "}
          <button type="button" className="btn-link" onClick={() => setReload((n) => n + 1)}>
            Try again
          </button>
        </Alert>
      ) : null}
      {state.kind === "loading" && !shown ? <Spinner label="Loading analytics…" /> : null}
      {shown ? (
        <div className={state.kind === "loading" ? "stale" : ""} data-testid="analytics-body" aria-busy={state.kind === "loading"}>
          <AnalyticsBody data={shown} />
        </div>
      ) : null}
    </div>
  );
}

function AnalyticsBody({ data }: { data: Analytics }) {
  const extras = data.range_visitors !== undefined;
  const clicks = data.range_clicks ?? 0;
  return (
    <>
      <Totals
        data={data}
        extra={data.leads !== undefined ? <ConversionTiles leads={data.leads} sales={data.sales ?? 0} revenue={data.revenue} /> : undefined}
      />
      {clicks === 0 ? (
        <EmptyState title="No clicks in this period" testId="analytics-empty" icon="analytics">
          <p className="muted">Choose a longer range or clear the filters: clicks appear here shortly after they happen.</p>
        </EmptyState>
      ) : (
        <>
          {data.series?.length ? <ChartCard series={data.series} granularity={data.granularity} tz={data.tz} extras={extras} /> : null}
          <div className={wideGrid([data.links])}>
            <TopLinks links={data.links} visitors={extras} />
            <SourcesPanel data={data} />
          </div>
          <Breakdowns data={data} />
        </>
      )}
    </>
  );
}
