// Clicks per day (or hour) as an SVG bar chart drawn at the width it is shown at, so that its text stays at its CSS size
// (11 px and up) on a phone as on a desktop.
import { useEffect, useRef, useState } from "react";

const H = 260;
/** The room one date label needs, in pixels. */
const LABEL_ROOM = 56;

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

/** Bar chart: y axis with round ticks, x labels (`label` of each point's date or hour) spaced to stay readable. */
export function DailyChart({ data, label, caption }: { data: { date: string; clicks: number }[]; label: (date: string) => string; caption: string }) {
  const [ref, width] = useWidth<HTMLDivElement>(760);
  const W = Math.max(240, width);
  const pad = { top: 16, right: 12, bottom: 36, left: 44 };
  const innerW = W - pad.left - pad.right;
  const innerH = H - pad.top - pad.bottom;
  const maxVal = Math.max(1, ...data.map((d) => d.clicks));
  const step = niceStep(maxVal / 4);
  const top = Math.ceil(maxVal / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  const slot = innerW / data.length;
  const barW = Math.max(1, Math.min(28, slot * 0.7));
  const labelEvery = Math.max(1, Math.ceil(data.length / Math.max(1, Math.floor(innerW / LABEL_ROOM))));
  const y = (v: number) => pad.top + innerH - (v / top) * innerH;
  const [hover, setHover] = useState<number | null>(null);
  const hovered = hover != null ? data[hover] : undefined;

  return (
    <div className="chart-wrap" ref={ref}>
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label={`Clicks from ${label(data[0]?.date ?? "")} to ${label(data[data.length - 1]?.date ?? "")}`} data-testid="daily-chart">
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={W - pad.right} y1={y(t)} y2={y(t)} className="grid-line" />
            <text x={pad.left - 8} y={y(t)} className="axis-label" textAnchor="end" dominantBaseline="middle">
              {formatTick(t)}
            </text>
          </g>
        ))}
        {data.map((d, i) => {
          const x = pad.left + i * slot + (slot - barW) / 2;
          const h = (d.clicks / top) * innerH;
          return (
            <g key={d.date} onMouseEnter={() => setHover(i)} onMouseLeave={() => setHover(null)}>
              <rect x={pad.left + i * slot} y={pad.top} width={slot} height={innerH} fill="transparent" />
              <rect x={x} y={y(d.clicks)} width={barW} height={Math.max(0, h)} rx={Math.min(3, barW / 3)} className={`bar${hover === i ? " bar-hover" : ""}`} data-date={d.date} data-clicks={d.clicks}>
                <title>{`${label(d.date)}: ${d.clicks} ${d.clicks === 1 ? "click" : "clicks"}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text x={pad.left + i * slot + slot / 2} y={H - pad.bottom + 18} className="axis-label" textAnchor="middle">
                  {label(d.date)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line x1={pad.left} x2={W - pad.right} y1={pad.top + innerH} y2={pad.top + innerH} className="axis-line" />
      </svg>
      <p className="chart-caption muted small" aria-live="polite">
        {hovered ? `${label(hovered.date)}: ${hovered.clicks.toLocaleString()} ${hovered.clicks === 1 ? "click" : "clicks"}` : caption}
      </p>
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
  return v >= 10_000 ? `${Math.round(v / 1000)}k` : v.toLocaleString();
}
