// The statistics' destinations: where the range's clicks went (default, a rule, a device destination, a
// split's variant), and for a link with a split its variants day by day as lines.
import type { Link } from "@contract/links";
import type { Stats } from "@contract/stats";
import { formatDay } from "../shared/dates";
import { destinationLabel } from "../shared/destination-label";
import { useWidth } from "../shared/charts/SeriesChart";
import { formatShare } from "../shared/charts/parts";
import { zeroFill } from "../shared/charts/days";
import "./destinations.css";
import { formatNumber } from "../shared/numbers";

type DestinationRow = NonNullable<Stats["destinations"]>[number];

/** Worth a panel: something else than the default answered, or the link can send elsewhere. */
export function showsDestinations(stats: Stats, link: Link | null): boolean {
  if (!stats.destinations) return false;
  return stats.destinations.some((d) => d.destination !== "default") || (!!link && (link.rules.length > 0 || link.split.length > 0));
}

const H = 220;
const LABEL_ROOM = 56;

interface Series {
  destination: string;
  points: { date: string; clicks: number }[];
}

/** One line per variant over the range's days (days without clicks at zero). */
function VariantChart({ series, caption }: { series: Series[]; caption: string }) {
  const [ref, width] = useWidth<HTMLDivElement>(760);
  const W = Math.max(240, width);
  const pad = { top: 14, right: 12, bottom: 32, left: 40 };
  const innerW = W - pad.left - pad.right;
  const innerH = H - pad.top - pad.bottom;
  const days = series[0]?.points ?? [];
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.clicks)));
  const top = max <= 4 ? 4 : Math.ceil(max / 4) * 4;
  const ticks = [0, top / 4, top / 2, (3 * top) / 4, top];
  const x = (i: number) => pad.left + (days.length <= 1 ? innerW / 2 : (i / (days.length - 1)) * innerW);
  const y = (v: number) => pad.top + innerH - (v / top) * innerH;
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(1, Math.floor(innerW / LABEL_ROOM))));
  return (
    <div className="chart-wrap" ref={ref}>
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label="Clicks per day of each variant" data-testid="variants-chart">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={W - pad.right} y1={y(t)} y2={y(t)} className="grid-line" />
            <text x={pad.left - 8} y={y(t)} className="axis-label" textAnchor="end" dominantBaseline="middle">
              {formatNumber(t)}
            </text>
          </g>
        ))}
        {days.map((d, i) =>
          i % labelEvery === 0 ? (
            <text key={d.date} x={x(i)} y={H - pad.bottom + 18} className="axis-label" textAnchor="middle">
              {formatDay(d.date)}
            </text>
          ) : null,
        )}
        <line x1={pad.left} x2={W - pad.right} y1={pad.top + innerH} y2={pad.top + innerH} className="axis-line" />
        {series.map((s, n) => (
          <g key={s.destination} className={`dest-series dest-series-${n + 1}`} data-destination={s.destination}>
            <polyline fill="none" strokeWidth={2} strokeLinejoin="round" points={s.points.map((p, i) => `${x(i)},${y(p.clicks)}`).join(" ")} />
            {days.length <= 31
              ? s.points.map((p, i) => (
                  <circle key={p.date} cx={x(i)} cy={y(p.clicks)} r={2.5} data-date={p.date} data-clicks={p.clicks}>
                    <title>{`${destinationLabel(s.destination)}, ${formatDay(p.date)}: ${p.clicks} ${p.clicks === 1 ? "click" : "clicks"}`}</title>
                  </circle>
                ))
              : null}
          </g>
        ))}
      </svg>
      <ul className="chart-legend">
        {series.map((s, n) => (
          <li key={s.destination}>
            <span className={`dest-swatch dest-series-${n + 1}`} aria-hidden="true" />
            {destinationLabel(s.destination)}
          </li>
        ))}
      </ul>
      <p className="chart-caption muted small">{caption}</p>
    </div>
  );
}

function variantSeries(stats: Stats, link: Link, from: string, to: string): Series[] {
  const daily = stats.destinations_daily ?? [];
  return link.split.map((_, i) => {
    const destination = `variant:${i + 1}`;
    return {
      destination,
      points: zeroFill(
        daily.filter((d) => d.destination === destination),
        from,
        to,
      ),
    };
  });
}

function Row({ d }: { d: DestinationRow }) {
  return (
    <li className="hbar dest-row" data-testid={`destination-${d.destination}`} data-clicks={d.clicks}>
      <div className="hbar-text">
        <span className="hbar-label dest-label">
          <strong>{destinationLabel(d.destination)}</strong>
          <span className="muted small dest-url" title={d.url ?? undefined}>
            {d.url ?? "no longer on the link"}
          </span>
        </span>
        <span className="hbar-value">
          {formatNumber(d.clicks)} <span className="muted">· {formatShare(d.share)}</span>
        </span>
      </div>
      <div className="hbar-track" aria-hidden="true">
        <div className="hbar-fill" style={{ width: `${Math.max(2, d.share * 100)}%` }} />
      </div>
    </li>
  );
}

export function DestinationsPanel({ stats, link, from, to, lastDay }: { stats: Stats; link: Link | null; from: string; to: string; lastDay: boolean }) {
  const list = stats.destinations ?? [];
  // Days are drawn only for a range of days: the last 24 hours would be one or two points.
  const series = link && link.split.length > 0 && !lastDay && stats.destinations_daily ? variantSeries(stats, link, from, to) : [];
  return (
    <section className="card" data-testid="destinations-panel">
      <h2>Destinations</h2>
      <p className="muted small">Where this period’s clicks were sent: by a rule, a device destination, a variant of the split, or the default URL.</p>
      {list.length === 0 ? (
        <p className="muted small">No clicks in this period.</p>
      ) : (
        <ul className="hbars">
          {list.map((d) => (
            <Row key={d.destination} d={d} />
          ))}
        </ul>
      )}
      {series.length ? (
        <>
          <h3 className="dest-subhead">Variants per day</h3>
          <VariantChart series={series} caption={`${series[0]?.points.length ?? 0} days (UTC days)`} />
        </>
      ) : null}
    </section>
  );
}
