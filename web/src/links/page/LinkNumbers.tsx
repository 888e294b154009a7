// A link's numbers, first on its page: all-time clicks, visitors and clicks of the last 30 days, the last click
// and the 30 days' sparkline, from one read of the statistics the statistics page makes (range=30d).
import { useEffect, useState } from "react";
import type { Link } from "@contract/links";
import { monthStats, type MonthStats as Stats } from "./link-page-api";
import { formatRelative } from "../../shared/dates";
import { A, errorMessage, formatDateTime } from "../../shared/ui";
import { MonthSparkline } from "./MonthSparkline";
import { formatNumber } from "../../shared/numbers";
import { ConversionFunnel, SplitTestPanel, showsFunnel } from "../../shared/charts/Conversions";

const DAYS = "in the last 30 days";

function Tile({ label, value, note, testId, title }: { label: string; value: string; note?: string; testId: string; title?: string }) {
  return (
    <div className="link-number">
      <p className="link-number-label">{label}</p>
      <p className="link-number-value" data-testid={testId} title={title}>
        {value}
      </p>
      {note ? <p className="muted small link-number-note">{note}</p> : null}
    </div>
  );
}

/** The statistics of the last 30 days in the browser's zone; null while they load; the error's message if they failed. */
function useMonthStats(id: string, reload: number): { stats: Stats | null; error: string | null } {
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    monthStats(id).then(
      (s) => live && setStats(s),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [id, reload]);
  return { stats, error };
}

function Trend({ stats }: { stats: Stats | null }) {
  if (!stats) return <div className="month-sparkline month-sparkline-loading" aria-hidden="true" />;
  if (!stats.series)
    return (
      <p className="muted small" data-testid="link-numbers-plan">
        {stats.message ?? "Visitors and the daily chart come with advanced statistics."}
      </p>
    );
  return <MonthSparkline values={stats.series.map((p) => p.clicks)} days={DAYS} />;
}

export function LinkNumbers({ link }: { link: Link }) {
  const [reload, setReload] = useState(0);
  const { stats, error } = useMonthStats(link.id, reload);
  const clicks = stats?.total_clicks ?? link.click_count;
  const month = stats?.range_clicks;
  const clicksNote = [
    month !== undefined ? `${formatNumber(month)} ${DAYS}` : "all time",
    link.imported_clicks > 0 ? `+ ${formatNumber(link.imported_clicks)} imported` : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return (
    <>
      <section className="card link-numbers" aria-label="Numbers" data-testid="link-numbers" aria-busy={!stats && !error}>
        <div className="link-number-tiles">
          <Tile label="Clicks" value={formatNumber(clicks)} note={clicksNote} testId="link-page-clicks" />
          <Tile
            label="Visitors"
            value={stats?.range_visitors !== undefined ? formatNumber(stats.range_visitors) : "—"}
            note={stats && stats.range_visitors === undefined ? "Not on this plan" : DAYS}
            testId="link-page-visitors"
          />
          <Tile
            label="Last click"
            value={link.last_click_at ? formatRelative(link.last_click_at) : "Never"}
            title={link.last_click_at ? formatDateTime(link.last_click_at) : undefined}
            testId="link-page-last-click"
          />
          <div className="link-number link-number-trend">
            <p className="link-number-label">Clicks per day, 30 days</p>
            <Trend stats={stats} />
          </div>
        </div>
        {error ? (
          <p className="field-error link-numbers-error" role="alert" data-testid="link-numbers-error">
            Could not load the statistics: {error}{" "}
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setReload((n) => n + 1)} data-testid="link-numbers-retry">
              Try again
            </button>
          </p>
        ) : null}
        <p className="link-numbers-more small">
          <A to={`/app/links/${encodeURIComponent(link.id)}/stats`}>All statistics →</A>
        </p>
      </section>
      {stats?.leads !== undefined && showsFunnel(stats) ? (
        <ConversionFunnel
          clicks={month ?? 0}
          leads={stats.leads}
          sales={stats.sales ?? 0}
          revenue={stats.revenue}
          imported={stats.imported_conversions}
          note="The last 30 days: leads and sales this link's clicks led to, revenue net of refunds."
        />
      ) : null}
      <SplitTestPanel test={stats?.split_test} decision={link.split_decision} />
    </>
  );
}
