// Statistics of one link: total, daily chart, breakdowns, range picker and CSV export.
import { useEffect, useMemo, useState } from "react";
import { useParams, useSearchParams } from "react-router";
import { api, planAtLeast, type Link, type Stats } from "../api";
import { useSession } from "../session";
import { A, Alert, EmptyState, ModerationNotice, Spinner, UpgradeHint, errorMessage, useTitle } from "../ui";

const DAY = 86_400_000;

/** YYYY-MM-DD of a Date, in UTC (the API's days are UTC days). */
function ymd(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function validYmd(s: string | null): s is string {
  return !!s && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));
}

function presetRange(days: number): { from: string; to: string } {
  const now = Date.now();
  return { from: ymd(new Date(now - (days - 1) * DAY)), to: ymd(new Date(now)) };
}

/** Every day from..to (inclusive) with its clicks, zero when the API sent nothing for it. */
export function zeroFill(daily: { date: string; clicks: number }[], from: string, to: string): { date: string; clicks: number }[] {
  const byDate = new Map<string, number>();
  for (const d of daily) byDate.set(d.date.slice(0, 10), (byDate.get(d.date.slice(0, 10)) ?? 0) + d.clicks);
  const out: { date: string; clicks: number }[] = [];
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start || (end - start) / DAY > 3660) return daily;
  for (let t = start; t <= end; t += DAY) {
    const key = ymd(new Date(t));
    out.push({ date: key, clicks: byDate.get(key) ?? 0 });
  }
  return out;
}

export function StatsPage() {
  const { id = "" } = useParams();
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const def = presetRange(30);
  const from = validYmd(params.get("from")) ? (params.get("from") as string) : def.from;
  const to = validYmd(params.get("to")) ? (params.get("to") as string) : def.to;

  const [link, setLink] = useState<Link | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useTitle(link ? `Statistics of ${link.alias}` : "Statistics");

  useEffect(() => {
    let live = true;
    api
      .getLink(id)
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
    api
      .stats(id, from, to)
      .then((s) => live && setStats(s))
      .catch((e: unknown) => live && setError(errorMessage(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id, from, to, reload]);

  function setRange(f: string, t: string) {
    const next = new URLSearchParams(params);
    next.set("from", f);
    next.set("to", t);
    setParams(next, { replace: true });
  }

  const activePreset = [7, 30, 90].find((n) => {
    const r = presetRange(n);
    return r.from === from && r.to === to;
  });
  const advanced = stats ? stats.advanced !== false : true;
  // A team owner's link: what is shown follows the owner's plan (the server says so through `advanced`).
  const shared = !!link && !!user && link.owner_id !== user.id;
  const canCsv = (shared || planAtLeast(user?.plan, "pro")) && advanced;
  const csvHref = `/api/links/${encodeURIComponent(id)}/stats.csv?${new URLSearchParams({ from, to })}`;
  const daily = useMemo(() => (stats?.daily ? zeroFill(stats.daily, from, to) : []), [stats, from, to]);
  const rangeClicks = stats ? (stats.range_clicks ?? (stats.daily ? stats.daily.reduce((n, d) => n + d.clicks, 0) : null)) : null;

  return (
    <div className="stats-page">
      <p className="breadcrumb">
        {shared && link?.owner_id ? <A to={`/app/shared/${encodeURIComponent(link.owner_id)}`}>← Shared links</A> : <A to="/app">← Your links</A>}
      </p>
      <div className="page-head">
        <div>
          <h1>Statistics</h1>
          {link ? (
            <p className="muted">
              <a href={link.short_url} target="_blank" rel="noopener noreferrer" data-testid="stats-short-url">
                {link.short_url}
              </a>{" "}
              → <span className="truncate inline-truncate" title={link.url}>{link.url}</span>
            </p>
          ) : null}
        </div>
        {canCsv ? (
          <a className="btn btn-secondary" href={csvHref} download data-testid="stats-csv">
            Download CSV
          </a>
        ) : null}
      </div>

      {link ? <ModerationNotice link={link} compact /> : null}
      <div className="card range-bar" data-testid="range-picker">
        <div className="presets" role="group" aria-label="Preset ranges">
          {[7, 30, 90].map((n) => (
            <button
              key={n}
              type="button"
              className={`chip${activePreset === n ? " chip-active" : ""}`}
              aria-pressed={activePreset === n}
              data-testid={`preset-${n}`}
              onClick={() => {
                const r = presetRange(n);
                setRange(r.from, r.to);
              }}
            >
              Last {n} days
            </button>
          ))}
        </div>
        <div className="range-inputs">
          <label htmlFor="stats-from">From</label>
          <input id="stats-from" data-testid="stats-from" type="date" value={from} max={to} onChange={(e) => validYmd(e.target.value) && setRange(e.target.value, to)} />
          <label htmlFor="stats-to">To</label>
          <input id="stats-to" data-testid="stats-to" type="date" value={to} min={from} onChange={(e) => validYmd(e.target.value) && setRange(from, e.target.value)} />
        </div>
      </div>

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
        <div className={loading ? "stale" : ""}>
          <div className="stat-tiles">
            {rangeClicks != null ? (
              <div className="card tile">
                <p className="tile-label">Clicks in this period</p>
                <p className="tile-value" data-testid="range-clicks">
                  {rangeClicks.toLocaleString()}
                </p>
                <p className="muted small">
                  {from} to {to} (UTC)
                </p>
              </div>
            ) : null}
            <div className="card tile">
              <p className="tile-label">Total clicks</p>
              <p className="tile-value" data-testid="total-clicks">
                {stats.total_clicks.toLocaleString()}
              </p>
              <p className="muted small">since the link was created</p>
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
          </div>

          <p className="honest-note" data-testid="clicks-note">
            Clicks count requests, not people: repeat visits, bots and link previews are counted too.
          </p>

          {stats.total_clicks === 0 ? (
            <EmptyState title="No clicks yet" testId="stats-empty">
              <p className="muted">Share the short link: clicks appear here shortly after they happen.</p>
            </EmptyState>
          ) : !advanced ? (
            <ProTeaser message={stats.message} />
          ) : (
            <>
              {daily.length ? (
                <section className="card">
                  <h2>Clicks per day</h2>
                  <DailyChart data={daily} />
                </section>
              ) : null}
              <div className="breakdowns">
                <Breakdown title="Countries" testId="breakdown-countries" items={stats.countries?.map((x) => ({ label: countryName(x.country), clicks: x.clicks }))} />
                <Breakdown title="Devices" testId="breakdown-devices" items={stats.devices?.map((x) => ({ label: x.device, clicks: x.clicks }))} />
                <Breakdown title="Browsers" testId="breakdown-browsers" items={stats.browsers?.map((x) => ({ label: x.browser, clicks: x.clicks }))} />
                {stats.os ? <Breakdown title="Operating systems" testId="breakdown-os" items={stats.os.map((x) => ({ label: x.os, clicks: x.clicks }))} /> : null}
                {stats.referrers ? <Breakdown title="Referrers" testId="breakdown-referrers" items={stats.referrers.map((x) => ({ label: x.referrer, clicks: x.clicks }))} /> : null}
              </div>
            </>
          )}
          {!advanced && stats.total_clicks === 0 ? <ProTeaser message={stats.message} /> : null}
        </div>
      ) : null}
    </div>
  );
}

function formatShare(v: number): string {
  const pct = v <= 1 ? v * 100 : v;
  return `${pct.toFixed(pct < 10 && pct > 0 ? 1 : 0)}%`;
}

let regionNames: Intl.DisplayNames | null = null;
function countryName(code: string): string {
  if (!code || code.length !== 2) return code ? code.charAt(0).toUpperCase() + code.slice(1) : "Unknown";
  try {
    regionNames ??= new Intl.DisplayNames(undefined, { type: "region" });
    return `${regionNames.of(code.toUpperCase()) ?? code} (${code.toUpperCase()})`;
  } catch {
    return code;
  }
}

function ProTeaser({ message }: { message?: string }) {
  return (
    <section className="card upgrade-card" data-testid="stats-pro-teaser">
      <h2>More with Pro</h2>
      {message ? <p className="muted">{message}</p> : null}
      <p>Your plan shows the total number of clicks. Pro and above add:</p>
      <ul className="checklist">
        <li>a daily chart of clicks</li>
        <li>countries, devices and browsers of your visitors</li>
        <li>CSV export of the statistics</li>
        <li>expiration dates and click limits on links</li>
      </ul>
      <UpgradeHint plan="Pro" />
    </section>
  );
}

function Breakdown({ title, items, testId }: { title: string; items: { label: string; clicks: number }[] | undefined; testId: string }) {
  const list = (items ?? []).filter((i) => i.clicks > 0).sort((a, b) => b.clicks - a.clicks);
  const total = list.reduce((s, i) => s + i.clicks, 0);
  const max = list[0]?.clicks ?? 0;
  return (
    <section className="card breakdown" data-testid={testId}>
      <h2>{title}</h2>
      {list.length === 0 ? (
        <p className="muted small">No data for this period.</p>
      ) : (
        <ul className="hbars">
          {list.slice(0, 10).map((i) => (
            <li key={i.label} className="hbar">
              <div className="hbar-text">
                <span className="hbar-label truncate" title={i.label || "Unknown"}>
                  {i.label || "Unknown"}
                </span>
                <span className="hbar-value">
                  {i.clicks.toLocaleString()} <span className="muted">· {total ? Math.round((i.clicks / total) * 100) : 0}%</span>
                </span>
              </div>
              <div className="hbar-track" aria-hidden="true">
                <div className="hbar-fill" style={{ width: `${max ? Math.max(2, (i.clicks / max) * 100) : 0}%` }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Bar chart drawn in SVG: y axis with round ticks, x labels spaced to stay readable. */
function DailyChart({ data }: { data: { date: string; clicks: number }[] }) {
  const W = 760;
  const H = 260;
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
  const labelEvery = Math.max(1, Math.ceil(data.length / 8));
  const y = (v: number) => pad.top + innerH - (v / top) * innerH;
  const [hover, setHover] = useState<number | null>(null);
  const hovered = hover != null ? data[hover] : undefined;

  return (
    <div className="chart-wrap">
      <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-label={`Clicks per day from ${data[0]?.date} to ${data[data.length - 1]?.date}`} data-testid="daily-chart">
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
                <title>{`${d.date}: ${d.clicks} ${d.clicks === 1 ? "click" : "clicks"}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text x={pad.left + i * slot + slot / 2} y={H - pad.bottom + 18} className="axis-label" textAnchor="middle">
                  {shortDate(d.date)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line x1={pad.left} x2={W - pad.right} y1={pad.top + innerH} y2={pad.top + innerH} className="axis-line" />
      </svg>
      <p className="chart-caption muted small" aria-live="polite">
        {hovered ? `${hovered.date}: ${hovered.clicks.toLocaleString()} ${hovered.clicks === 1 ? "click" : "clicks"}` : `${data.length} days, UTC`}
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

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
function shortDate(d: string): string {
  const m = Number(d.slice(5, 7));
  return `${MONTHS[m - 1] ?? d.slice(5, 7)} ${Number(d.slice(8, 10))}`;
}
