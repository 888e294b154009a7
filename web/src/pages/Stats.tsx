// Statistics of one link: total, daily chart, breakdowns, range picker and CSV export.
import { TagList } from "../tag-chip";
import { useEffect, useMemo, useState } from "react";
import { useParams, useSearchParams } from "react-router";
import { api, planAtLeast } from "../api";
import type { Link } from "@contract/links";
import type { Stats } from "@contract/stats";
import { useSession } from "../session";
import { formatDay, formatHour } from "../dates";
import { A, Alert, EmptyState, ModerationNotice, Spinner, errorMessage, useTitle } from "../ui";
import { DailyChart } from "./stats/DailyChart";
import { DestinationsPanel, showsDestinations } from "./stats/Destinations";
import { Breakdown, ProTeaser, countryName, formatShare } from "./stats/parts";
import { labelCase, presetRange, validYmd, zeroFill } from "./stats/days";

export function StatsPage() {
  const { id = "" } = useParams();
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const def = presetRange(30);
  const from = validYmd(params.get("from")) ? (params.get("from") as string) : def.from;
  const to = validYmd(params.get("to")) ? (params.get("to") as string) : def.to;
  // The last 24 hours, by hour: a range of its own (`?range=24h`), not a pair of days.
  const lastDay = params.get("range") === "24h";

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
      .stats(id, lastDay ? { range: "24h" } : { from, to })
      .then((s) => live && setStats(s))
      .catch((e: unknown) => live && setError(errorMessage(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id, from, to, lastDay, reload]);

  function setRange(f: string, t: string) {
    const next = new URLSearchParams(params);
    next.set("from", f);
    next.set("to", t);
    next.delete("range");
    setParams(next, { replace: true });
  }

  // The date fields show the days the view covers: for the last 24 hours, yesterday and today (UTC).
  const shown = lastDay ? presetRange(2) : { from, to };
  const activePreset = lastDay ? undefined : [7, 30, 90].find((n) => {
    const r = presetRange(n);
    return r.from === from && r.to === to;
  });
  const advanced = stats ? stats.advanced !== false : true;
  // A team owner's link: what is shown follows the owner's plan (the server says so through `advanced`).
  const shared = !!link && !!user && link.owner_id !== user.id;
  const canCsv = (shared || planAtLeast(user?.plan, "pro")) && advanced;
  const csvHref = `/api/links/${encodeURIComponent(id)}/stats.csv?${new URLSearchParams(lastDay ? { range: "24h" } : { from, to })}`;
  const daily = useMemo(() => (stats?.daily ? zeroFill(stats.daily, from, to) : []), [stats, from, to]);
  const hourly = useMemo(() => (lastDay && stats?.hourly ? stats.hourly.map((h) => ({ date: h.hour, clicks: h.clicks })) : []), [lastDay, stats]);
  const rangeClicks = stats ? (stats.range_clicks ?? (stats.daily ? stats.daily.reduce((n, d) => n + d.clicks, 0) : null)) : null;

  return (
    <div className="stats-page">
      <p className="breadcrumb">
        {shared && link?.owner_id ? <A to={`/app/shared/${encodeURIComponent(link.owner_id)}`}>← Shared links</A> : <A to="/app">← Your links</A>}
      </p>
      <div className="page-head">
        <div>
          <h1>Statistics</h1>
          {link ? <TagList tags={link.tags} /> : null}
          {link?.title ? (
            <p className="stats-link-title" data-testid="stats-link-title">
              {link.title}
            </p>
          ) : null}
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

      {link?.note ? (
        <p className="muted stats-link-note" data-testid="stats-link-note">
          {link.note}
        </p>
      ) : null}
      {link ? <ModerationNotice link={link} compact /> : null}
      <div className="card range-bar" data-testid="range-picker">
        <div className="presets" role="group" aria-label="Preset ranges">
          <button
            type="button"
            className={`chip${lastDay ? " chip-active" : ""}`}
            aria-pressed={lastDay}
            data-testid="preset-24h"
            onClick={() => {
              const next = new URLSearchParams(params);
              next.delete("from");
              next.delete("to");
              next.set("range", "24h");
              setParams(next, { replace: true });
            }}
          >
            Last 24 hours
          </button>
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
          <input id="stats-from" data-testid="stats-from" type="date" value={shown.from} max={shown.to} onChange={(e) => validYmd(e.target.value) && setRange(e.target.value, shown.to)} />
          <label htmlFor="stats-to">To</label>
          <input id="stats-to" data-testid="stats-to" type="date" value={shown.to} min={shown.from} onChange={(e) => validYmd(e.target.value) && setRange(shown.from, e.target.value)} />
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
                <p className="muted small" data-testid="range-label">
                  {lastDay ? "The last 24 hours" : `${formatDay(from)} to ${formatDay(to)}`}
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
              {lastDay && hourly.length ? (
                <section className="card">
                  <h2>Clicks per hour</h2>
                  <DailyChart data={hourly} label={formatHour} caption="24 hours, in your time zone" />
                </section>
              ) : daily.length ? (
                <section className="card">
                  <h2>Clicks per day</h2>
                  <DailyChart data={daily} label={formatDay} caption={`${daily.length} days (UTC days)`} />
                </section>
              ) : null}
              {showsDestinations(stats, link) ? <DestinationsPanel stats={stats} link={link} from={from} to={to} lastDay={lastDay} /> : null}
              <div className="breakdowns">
                <Breakdown title="Countries" testId="breakdown-countries" items={stats.countries?.map((x) => ({ label: countryName(x.country), clicks: x.clicks }))} />
                <Breakdown title="Devices" testId="breakdown-devices" items={stats.devices?.map((x) => ({ label: labelCase(x.device), clicks: x.clicks }))} />
                <Breakdown title="Browsers" testId="breakdown-browsers" items={stats.browsers?.map((x) => ({ label: labelCase(x.browser), clicks: x.clicks }))} />
                {stats.os ? <Breakdown title="Operating systems" testId="breakdown-os" items={stats.os.map((x) => ({ label: labelCase(x.os), clicks: x.clicks }))} /> : null}
                {stats.referrers ? <Breakdown title="Referrers" testId="breakdown-referrers" items={stats.referrers.map((x) => ({ label: x.referrer === "direct" || x.referrer === "unknown" ? labelCase(x.referrer) : x.referrer, clicks: x.clicks }))} /> : null}
              </div>
              {stats.countries?.length && stats.countries.every((x) => !x.country || x.country === "unknown") ? (
                <p className="muted small" data-testid="countries-unknown-hint">
                  Every country is Unknown: the operator of this service can set GEOIP_DB (a country database) or, behind a proxy that adds a
                  country header, TRUST_PROXY and COUNTRY_HEADER (docs/configuration.md).
                </p>
              ) : null}
            </>
          )}
          {!advanced && stats.total_clicks === 0 ? <ProTeaser message={stats.message} /> : null}
        </div>
      ) : null}
    </div>
  );
}
