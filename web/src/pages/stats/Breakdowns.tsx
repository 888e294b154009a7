// The period's breakdowns (countries, devices, browsers, systems, referrers) with clicks and visitors, and the split
// between the short link itself and its QR codes.
import { countryName, formatShare } from "./parts";
import "./stats.css";
import { labelCase } from "./days";
import type { PeriodData } from "./period";

interface Item {
  label: string;
  clicks: number;
  visitors?: number;
}

/** One breakdown: the ten with most clicks, each with its visitors (when the plan shows them) and its share. */
export function Breakdown({ title, items, testId, note }: { title: string; items: Item[] | undefined; testId: string; note?: string }) {
  const list = (items ?? []).filter((i) => i.clicks > 0).sort((a, b) => b.clicks - a.clicks);
  const total = list.reduce((s, i) => s + i.clicks, 0);
  const max = list[0]?.clicks ?? 0;
  const visitors = list.some((i) => typeof i.visitors === "number");
  return (
    <section className="card breakdown" data-testid={testId}>
      <h2>{title}</h2>
      {note ? <p className="muted small">{note}</p> : null}
      {list.length === 0 ? (
        <p className="muted small">No data for this period.</p>
      ) : (
        <>
          <div className="hbar-text hbar-head muted small" aria-hidden="true">
            <span className="hbar-label" />
            <span className="hbar-num">Clicks</span>
            {visitors ? <span className="hbar-num">Visitors</span> : null}
            <span className="hbar-num hbar-share">Share</span>
          </div>
          <ul className="hbars">
            {list.slice(0, 10).map((i) => (
              <li key={i.label} className="hbar" data-label={i.label || "Unknown"} data-clicks={i.clicks} data-visitors={i.visitors}>
                <div className="hbar-text">
                  <span className="hbar-label truncate" title={i.label || "Unknown"}>
                    {i.label || "Unknown"}
                  </span>
                  <span className="hbar-num" title="Clicks">
                    {i.clicks.toLocaleString()}
                  </span>
                  {visitors ? (
                    <span className="hbar-num" title="Visitors">
                      {(i.visitors ?? 0).toLocaleString()}
                    </span>
                  ) : null}
                  <span className="hbar-num hbar-share muted">{total ? Math.round((i.clicks / total) * 100) : 0}%</span>
                </div>
                <div className="hbar-track" aria-hidden="true">
                  <div className="hbar-fill" style={{ width: `${max ? Math.max(2, (i.clicks / max) * 100) : 0}%` }} />
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const named = (label: string) => (label === "direct" || label === "unknown" ? labelCase(label) : label);

/** Every breakdown the answer has, and a hint when no country could be told. */
export function Breakdowns({ data }: { data: PeriodData }) {
  return (
    <>
      <div className="breakdowns">
        <Breakdown title="Countries" testId="breakdown-countries" items={data.countries?.map((x) => ({ ...x, label: countryName(x.country) }))} />
        <Breakdown title="Devices" testId="breakdown-devices" items={data.devices?.map((x) => ({ ...x, label: labelCase(x.device) }))} />
        <Breakdown title="Browsers" testId="breakdown-browsers" items={data.browsers?.map((x) => ({ ...x, label: labelCase(x.browser) }))} />
        {data.os ? <Breakdown title="Operating systems" testId="breakdown-os" items={data.os.map((x) => ({ ...x, label: labelCase(x.os) }))} /> : null}
        {data.referrers ? <Breakdown title="Referrers" testId="breakdown-referrers" items={data.referrers.map((x) => ({ ...x, label: named(x.referrer) }))} /> : null}
      </div>
      {data.countries?.length && data.countries.every((x) => !x.country || x.country === "unknown") ? (
        <p className="muted small" data-testid="countries-unknown-hint">
          Every country is Unknown: the operator of this service can set GEOIP_DB (a country database) or, behind a proxy that adds a country header,
          TRUST_PROXY and COUNTRY_HEADER (docs/configuration.md).
        </p>
      ) : null}
    </>
  );
}

/** "Link vs QR": clicks on the short link itself and scans of its QR codes (the short URL with ?qr=1). */
export function SourcesPanel({ data }: { data: PeriodData }) {
  if (!data.sources) return null;
  const by = (s: "link" | "qr") => data.sources?.find((x) => x.source === s) ?? { clicks: 0, visitors: 0 };
  const total = by("link").clicks + by("qr").clicks;
  return (
    <section className="card sources" data-testid="sources-panel">
      <h2>Link vs QR</h2>
      <ul className="hbars">
        {(["link", "qr"] as const).map((s) => {
          const row = by(s);
          const share = total ? row.clicks / total : 0;
          return (
            <li key={s} className="hbar" data-testid={`source-${s}`} data-clicks={row.clicks} data-visitors={row.visitors}>
              <div className="hbar-text">
                <span className="hbar-label">{s === "link" ? "Short link" : "QR code scans"}</span>
                <span className="hbar-value">
                  {row.clicks.toLocaleString()} {row.clicks === 1 ? "click" : "clicks"} <span className="muted">· {row.visitors.toLocaleString()} {row.visitors === 1 ? "visitor" : "visitors"} · {formatShare(share)}</span>
                </span>
              </div>
              <div className="hbar-track" aria-hidden="true">
                <div className={`hbar-fill${s === "qr" ? " hbar-fill-qr" : ""}`} style={{ width: `${total ? Math.max(2, share * 100) : 0}%` }} />
              </div>
            </li>
          );
        })}
      </ul>
      <p className="muted small">A QR code from snip opens the short link with ?qr=1: scans are counted apart from clicks on the link.</p>
    </section>
  );
}
