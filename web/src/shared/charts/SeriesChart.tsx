// The period's points as an SVG chart drawn at the width it is shown at (its text stays at its CSS size, 11 px and
// up, on a phone as on a desktop): clicks as bars, their QR part stacked at the bottom, visitors as a line.
import { useEffect, useRef, useState } from "react";
import "./stats.css";
import type { Stats } from "@contract/stats";
import { pointLabel, pointTitle, type Granularity } from "./period";
import { formatNumber } from "../numbers";

type Point = NonNullable<Stats["series"]>[number];

const H = 260;
/** The room one axis label needs, in pixels. */
const LABEL_ROOM = 60;

/** The width of an element, followed as it changes. */
export function useWidth<E extends HTMLElement>(fallback: number) {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.round(el.getBoundingClientRect().width) || fallback);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [fallback]);
  return [ref, width] as const;
}

function plural(n: number, one: string, many: string): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

function describe(p: Point, granularity: Granularity | undefined, withExtras: boolean): string {
  const parts = [plural(p.clicks, "click", "clicks")];
  if (withExtras) parts.push(plural(p.visitors, "visitor", "visitors"), plural(p.qr, "QR scan", "QR scans"));
  return `${pointTitle(p.label, granularity)}: ${parts.join(", ")}`;
}

/** The axis labels: an hour chart names the day at midnight, so two days of hours read as two days. */
function axisText(p: Point, granularity: Granularity | undefined): string {
  if (granularity === "hour" && p.label.endsWith("T00:00")) return pointTitle(p.label, "day");
  return pointLabel(p.label, granularity);
}

// eslint-disable-next-line max-lines-per-function -- one SVG chart: its scales, axes, bars and tooltip are drawn from the same figures.
export function SeriesChart({
  series,
  granularity,
  extras,
  caption,
}: {
  series: Point[];
  granularity: Granularity | undefined;
  extras: boolean;
  caption: string;
}) {
  const [ref, width] = useWidth<HTMLDivElement>(760);
  const [hover, setHover] = useState<number | null>(null);
  const W = Math.max(240, width);
  const pad = { top: 16, right: 12, bottom: 36, left: 44 };
  const innerW = W - pad.left - pad.right;
  const innerH = H - pad.top - pad.bottom;
  const maxVal = Math.max(1, ...series.map((d) => Math.max(d.clicks, extras ? d.visitors : 0)));
  const step = niceStep(maxVal / 4);
  const top = Math.ceil(maxVal / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  const slot = innerW / Math.max(1, series.length);
  const barW = Math.max(1, Math.min(28, slot * 0.7));
  const labelEvery = Math.max(1, Math.ceil(series.length / Math.max(1, Math.floor(innerW / LABEL_ROOM))));
  const y = (v: number) => pad.top + innerH - (v / top) * innerH;
  const cx = (i: number) => pad.left + i * slot + slot / 2;
  const hovered = hover != null ? series[hover] : undefined;
  const first = series[0];
  const last = series[series.length - 1];

  return (
    <div className="chart-wrap" ref={ref}>
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        className="chart"
        role="img"
        aria-label={first && last ? `Clicks from ${pointTitle(first.label, granularity)} to ${pointTitle(last.label, granularity)}` : "Clicks"}
        data-testid="series-chart"
        data-granularity={granularity}
      >
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={W - pad.right} y1={y(t)} y2={y(t)} className="grid-line" />
            <text x={pad.left - 8} y={y(t)} className="axis-label" textAnchor="end" dominantBaseline="middle">
              {formatTick(t)}
            </text>
          </g>
        ))}
        {series.map((d, i) => {
          const x = cx(i) - barW / 2;
          const qr = extras ? d.qr : 0;
          return (
            <g
              key={d.start}
              onMouseEnter={() => setHover(i)}
              onMouseLeave={() => setHover(null)}
              className="point"
              data-label={d.label}
              data-clicks={d.clicks}
              data-visitors={d.visitors}
              data-qr={d.qr}
            >
              <rect x={pad.left + i * slot} y={pad.top} width={slot} height={innerH} fill="transparent" />
              <rect
                x={x}
                y={y(d.clicks)}
                width={barW}
                height={Math.max(0, y(0) - y(d.clicks))}
                rx={Math.min(3, barW / 3)}
                className={`bar${hover === i ? " bar-hover" : ""}`}
              >
                <title>{describe(d, granularity, extras)}</title>
              </rect>
              {qr > 0 ? <rect x={x} y={y(qr)} width={barW} height={Math.max(0, y(0) - y(qr))} className="bar-qr" /> : null}
              {i % labelEvery === 0 ? (
                <text x={cx(i)} y={H - pad.bottom + 18} className="axis-label" textAnchor="middle">
                  {axisText(d, granularity)}
                </text>
              ) : null}
            </g>
          );
        })}
        {extras ? (
          <polyline
            className="visitors-line"
            fill="none"
            strokeWidth={2}
            strokeLinejoin="round"
            points={series.map((d, i) => `${cx(i)},${y(d.visitors)}`).join(" ")}
          />
        ) : null}
        {extras && series.length <= 62
          ? series.map((d, i) => <circle key={d.start} className="visitors-dot" cx={cx(i)} cy={y(d.visitors)} r={2.5} pointerEvents="none" />)
          : null}
        <line x1={pad.left} x2={W - pad.right} y1={pad.top + innerH} y2={pad.top + innerH} className="axis-line" />
      </svg>
      <div className="chart-foot">
        {extras ? (
          <ul className="chart-legend" data-testid="chart-legend">
            <li>
              <span className="swatch swatch-clicks" aria-hidden="true" />
              Clicks
            </li>
            <li>
              <span className="swatch swatch-qr" aria-hidden="true" />
              of which QR scans
            </li>
            <li>
              <span className="swatch swatch-visitors" aria-hidden="true" />
              Visitors
            </li>
          </ul>
        ) : null}
        <p className="chart-caption muted small" aria-live="polite" data-testid="chart-caption">
          {hovered ? describe(hovered, granularity, extras) : caption}
        </p>
      </div>
    </div>
  );
}

function niceStep(raw: number): number {
  if (raw <= 1) return 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

function formatTick(v: number): string {
  return v >= 10_000 ? `${Math.round(v / 1000)}k` : formatNumber(v);
}

const UNIT: Record<Granularity, [string, string]> = { hour: ["hour", "hours"], day: ["day", "days"], month: ["month", "months"] };

/** The chart in its card, titled by its points ("Clicks per day") and captioned with their count and zone. */
export function ChartCard({ series, granularity, tz, extras }: { series: Point[]; granularity: Granularity | undefined; tz: string; extras: boolean }) {
  const [one, many] = UNIT[granularity ?? "day"];
  return (
    <section className="card" data-testid="chart-card">
      <h2>{extras ? `Clicks and visitors per ${one}` : `Clicks per ${one}`}</h2>
      <SeriesChart
        series={series}
        granularity={granularity}
        extras={extras}
        caption={`${plural(series.length, one, many)}, ${tz === "UTC" ? "UTC" : `time zone ${tz}`}`}
      />
    </section>
  );
}
