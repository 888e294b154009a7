// Statistics of one link over a period in a time zone: totals with their change, the chart, Link vs QR, where the
// clicks went, the breakdowns, and CSV export.
import { can } from "../shared/plan-gate";
import { TagList } from "../shared/tag-chip";
import { startTransition, useEffect, useState } from "react";
import { useParams } from "react-router";
import type { Link } from "@contract/links";
import type { Stats } from "@contract/stats";
import { useSession } from "../shared/session";
import { A, Alert, EmptyState, ModerationNotice, Spinner, errorMessage, useTitle } from "../shared/ui";
import { ChartCard } from "../shared/charts/SeriesChart";
import { DestinationsPanel, showsDestinations } from "./Destinations";
import { ProTeaser, formatShare } from "../shared/charts/parts";
import { Breakdowns, SourcesPanel } from "../shared/charts/Breakdowns";
import { RangeControls } from "../shared/charts/RangeControls";
import { Totals } from "../shared/charts/Totals";
import { queryString, usePeriod } from "../shared/charts/period";
import { linkApi } from "../shared/link-api";
import { statsApi } from "./stats-api";
import { BreakAt } from "../shared/break-at";
import { formatNumber } from "../shared/numbers";
import { ConversionFunnel, ConversionsByDestination, SplitTestPanel, showsFunnel } from "../shared/charts/Conversions";
import { AppsPanel } from "./AppsPanel";
import { ShareStatsButton } from "../shared/ShareStats";

// eslint-disable-next-line max-lines-per-function -- the link, its period and the statistics read share the page's state.
export function StatsPage() {
  const { id = "" } = useParams();
  const { user } = useSession();
  const period = usePeriod();
  const queryKey = queryString(period.params);
  const [link, setLink] = useState<Link | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useTitle(link ? `Statistics of ${link.alias}` : "Statistics");

  useEffect(() => {
    let live = true;
    linkApi
      .get(id)
      .then((l) => live && setLink(l))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    statsApi.stats(id, period.params).then(
      // The chart and a dozen breakdown tables at once: drawn in a transition, in slices (shared/lists.tsx).
      (s) =>
        live &&
        startTransition(() => {
          setStats(s);
          setLoading(false);
        }),
      (e: unknown) => {
        if (!live) return;
        setError(errorMessage(e));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [id, queryKey, reload]);

  const advanced = stats ? stats.advanced !== false : true;
  // A team owner's link: what is shown follows the owner's plan (the server says so through `advanced`).
  const shared = !!link && !!user && link.owner_id !== user.id;
  const canCsv = (shared || can(user?.plan ?? "free", "stats_csv")) && advanced;
  // Shared statistics (Business and up): a member asks for the owner's, whose plan the server checks.
  const canShare = !!link && (shared || can(user?.plan ?? "free", "shares"));

  return (
    <div className="stats-page">
      <p className="breadcrumb">
        {shared && link?.owner_id ? <A to={`/app/shared/${encodeURIComponent(link.owner_id)}`}>← Shared links</A> : <A to="/app">← Your links</A>}
      </p>
      <div className="page-head">
        <LinkHead link={link} />
        <div className="page-actions">
          {canShare ? <ShareStatsButton target={{ link_id: id }} owner={shared ? (link?.owner_id ?? null) : null} /> : null}
          {canCsv ? (
            <a className="btn btn-secondary" href={`/api/links/${encodeURIComponent(id)}/stats.csv?${queryKey}`} download data-testid="stats-csv">
              Download CSV
            </a>
          ) : null}
        </div>
      </div>

      {link?.note ? (
        <p className="muted stats-link-note" data-testid="stats-link-note">
          {link.note}
        </p>
      ) : null}
      {link ? <ModerationNotice link={link} compact /> : null}
      <RangeControls period={period} shown={stats} />

      {error ? (
        <Alert testId="stats-error">
          Could not load the statistics: {error}{" "}
          <button type="button" className="btn-link" onClick={() => setReload((n) => n + 1)}>
            Try again
          </button>
        </Alert>
      ) : null}

      {loading && !stats ? <Spinner label="Loading statistics…" /> : null}

      {stats ? (
        <div className={loading ? "stale" : ""} data-testid="stats-body" aria-busy={loading}>
          <StatsBody stats={stats} link={link} advanced={advanced} />
        </div>
      ) : null}
    </div>
  );
}

function LinkHead({ link }: { link: Link | null }) {
  return (
    <div>
      <h1>Statistics</h1>
      {link ? <TagList tags={link.tags} /> : null}
      {link?.title ? (
        <p className="stats-link-title" data-testid="stats-link-title">
          {link.title}
        </p>
      ) : null}
      {link ? (
        <p className="muted stats-link-urls">
          <a href={link.short_url} target="_blank" rel="noopener noreferrer" data-testid="stats-short-url">
            <BreakAt text={link.short_url} />
          </a>{" "}
          →{" "}
          <span className="truncate inline-truncate" title={link.url}>
            {link.url}
          </span>
        </p>
      ) : (
        // The line's place kept while the link loads, so the range controls below do not jump down when it comes.
        <p className="muted stats-link-urls" aria-hidden="true">
          &nbsp;
        </p>
      )}
    </div>
  );
}

function StatsBody({ stats, link, advanced }: { stats: Stats; link: Link | null; advanced: boolean }) {
  const extras = stats.range_visitors !== undefined;
  const tiles = (
    <>
      <div className="card tile">
        <p className="tile-label">Total clicks</p>
        <p className="tile-value" data-testid="total-clicks">
          {formatNumber(stats.total_clicks)}
        </p>
        <p className="muted small">since the link was created</p>
        {link && link.imported_clicks > 0 ? (
          <p className="muted small" data-testid="imported-clicks" title="Counted by the shortener this link was imported from, before it came to snip">
            + {formatNumber(link.imported_clicks)} imported
          </p>
        ) : null}
      </div>
      {typeof stats.bot_share === "number" ? (
        <div className="card tile">
          <p className="tile-label">Bot share</p>
          <p className="tile-value" data-testid="bot-share">
            {formatShare(stats.bot_share)}
          </p>
          <p className="muted small">requests that looked automated</p>
        </div>
      ) : null}
    </>
  );
  return (
    <>
      <Totals data={stats} extra={tiles} />
      <p className="honest-note" data-testid="clicks-note">
        Clicks count requests, not people: repeat visits, bots and link previews are counted too.
        {extras ? " Visitors count people: one per device and browser a day, from a key that forgets the address." : ""}
      </p>
      {stats.leads !== undefined && showsFunnel(stats) ? (
        <ConversionFunnel
          clicks={stats.range_clicks ?? 0}
          leads={stats.leads}
          sales={stats.sales ?? 0}
          revenue={stats.revenue}
          imported={stats.imported_conversions}
          note="Leads and sales recorded in this period for this link's clicks; revenue net of refunds, per currency."
        />
      ) : null}
      {link ? <SplitTestPanel test={stats.split_test} decision={link.split_decision} /> : null}
      {stats.apps ? <AppsPanel apps={stats.apps} /> : null}
      {stats.total_clicks === 0 ? (
        <EmptyState title="No clicks yet" testId="stats-empty" icon="analytics">
          <p className="muted">Share the short link: clicks appear here shortly after they happen.</p>
        </EmptyState>
      ) : !advanced ? (
        <ProTeaser message={stats.message} />
      ) : (
        <>
          {stats.series?.length ? <ChartCard series={stats.series} granularity={stats.granularity} tz={stats.tz} extras={extras} /> : null}
          <SourcesPanel data={stats} />
          {showsDestinations(stats, link) ? (
            <DestinationsPanel stats={stats} link={link} from={stats.from} to={stats.to} lastDay={stats.granularity !== "day"} />
          ) : null}
          {showsFunnel(stats) && stats.destinations && showsDestinations(stats, link) ? <ConversionsByDestination rows={stats.destinations} /> : null}
          <Breakdowns data={stats} destination={link?.url} />
        </>
      )}
      {!advanced && stats.total_clicks === 0 ? <ProTeaser message={stats.message} /> : null}
    </>
  );
}
