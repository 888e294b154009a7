// The period's totals (clicks, visitors, QR scans), each with its change against the period just before.
import type { ReactNode } from "react";
import "./stats.css";
import { periodText, previousLabel, type PeriodData } from "./period";
import { formatNumber } from "../numbers";

type Key = "clicks" | "visitors" | "qr";

/** "+25%", "−50%", "±0%"; "new" when nothing came before and something came now; null when both are zero. */
export function changeText(change: number | null | undefined, now: number): { text: string; tone: "up" | "down" | "flat" } | null {
  if (change === undefined) return null;
  if (change === null) return now > 0 ? { text: "new", tone: "up" } : null;
  const pct = Math.round(change * 100);
  if (pct === 0) return { text: "±0%", tone: "flat" };
  return { text: `${pct > 0 ? "+" : "−"}${formatNumber(Math.abs(pct))}%`, tone: pct > 0 ? "up" : "down" };
}

function Change({ data, k, now }: { data: PeriodData; k: Key; now: number }) {
  const c = changeText(data.change?.[k], now);
  if (!c || !data.previous) return null;
  const before = data.previous[k];
  return (
    <p className="tile-change small" data-testid={`change-${k}`} title={`${formatNumber(before)} from ${data.previous.from} to ${data.previous.to}`}>
      <span className={`change change-${c.tone}`}>{c.text}</span>
      <span className="muted">{c.text === "new" ? `: none in the ${previousLabel(data)}` : ` vs ${previousLabel(data)}`}</span>
    </p>
  );
}

function Tile({ data, k, label, value, note }: { data: PeriodData; k: Key; label: string; value: number; note: string }) {
  return (
    <div className="card tile" data-testid={`tile-${k}`}>
      <p className="tile-label">{label}</p>
      <p className="tile-value" data-testid={`range-${k}`}>
        {formatNumber(value)}
      </p>
      <Change data={data} k={k} now={value} />
      <p className="muted small">{note}</p>
    </div>
  );
}

/** Clicks always; visitors and QR scans when the plan shows them (the answer then has them); `extra` tiles after. */
export function Totals({ data, extra }: { data: PeriodData; extra?: ReactNode }) {
  const clicks = data.range_clicks ?? data.series?.reduce((n, p) => n + p.clicks, 0) ?? 0;
  return (
    <>
      <p className="muted small period-text" data-testid="range-label">
        {periodText(data)} · {data.tz}
      </p>
      <div className="stat-tiles">
        <Tile data={data} k="clicks" label="Clicks" value={clicks} note="in this period" />
        {data.range_visitors !== undefined ? (
          <Tile
            data={data}
            k="visitors"
            label="Visitors"
            value={data.range_visitors}
            note={data.granularity === "hour" ? "people, counted once a day" : "sum of each day's visitors"}
          />
        ) : null}
        {data.range_qr !== undefined ? <Tile data={data} k="qr" label="QR scans" value={data.range_qr} note="clicks from QR codes" /> : null}
        {extra}
      </div>
    </>
  );
}
