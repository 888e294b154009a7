// The period's breakdowns (countries, devices, browsers, systems, referrers; regions, cities, referring pages and
// UTM values) with clicks and visitors, and the split between the short link itself and its QR codes.
import type { ReactNode } from "react";
import { countryName } from "./parts";
import "./stats.css";
import { labelCase } from "./days";
import type { PeriodData } from "./period";

interface Item {
  label: string;
  clicks: number;
  visitors?: number;
}

/** The columns' names above a list of rows. */
export function ColumnsHead({ visitors, share = true }: { visitors: boolean; share?: boolean }) {
  return (
    <div className="hbar-text hbar-head muted small" aria-hidden="true">
      <span className="hbar-label" />
      <span className="hbar-num">Clicks</span>
      {visitors ? <span className="hbar-num">Visitors</span> : null}
      {share ? <span className="hbar-num hbar-share">Share</span> : null}
    </div>
  );
}

/** One row: its label, clicks, visitors (when shown) and share, over a bar as long as `bar` (0 to 1). */
export function Row(props: { label: ReactNode; title?: string; clicks: number; visitors?: number; share?: number; bar: number; fill?: string; testId?: string; data?: Record<string, string> }) {
  const { label, title, clicks, visitors, share, bar, fill, testId, data } = props;
  return (
    <li className="hbar" data-testid={testId} data-clicks={clicks} data-visitors={visitors} {...data}>
      <div className="hbar-text">
        <span className="hbar-label truncate" title={title}>
          {label}
        </span>
        <span className="hbar-num" title="Clicks">
          {clicks.toLocaleString()}
        </span>
        {visitors !== undefined ? (
          <span className="hbar-num" title="Visitors">
            {visitors.toLocaleString()}
          </span>
        ) : null}
        {share !== undefined ? <span className="hbar-num hbar-share muted">{Math.round(share * 100)}%</span> : null}
      </div>
      <div className="hbar-track" aria-hidden="true">
        <div className={`hbar-fill${fill ? ` ${fill}` : ""}`} style={{ width: `${bar > 0 ? Math.max(2, bar * 100) : 0}%` }} />
      </div>
    </li>
  );
}

/** One breakdown: the ten with most clicks, each with its visitors (when the plan shows them) and its share. */
export function Breakdown({ title, items, testId, empty }: { title: string; items: Item[] | undefined; testId: string; empty?: string }) {
  const list = (items ?? []).filter((i) => i.clicks > 0).sort((a, b) => b.clicks - a.clicks);
  const total = list.reduce((s, i) => s + i.clicks, 0);
  const max = list[0]?.clicks ?? 0;
  const visitors = list.some((i) => typeof i.visitors === "number");
  return (
    <section className="card breakdown" data-testid={testId}>
      <h2>{title}</h2>
      {list.length === 0 ? (
        <p className="muted small">{empty ?? "No data for this period."}</p>
      ) : (
        <>
          <ColumnsHead visitors={visitors} />
          <ul className="hbars">
            {list.slice(0, 10).map((i) => (
              <Row
                key={i.label}
                label={i.label || "Unknown"}
                title={i.label || "Unknown"}
                clicks={i.clicks}
                visitors={visitors ? (i.visitors ?? 0) : undefined}
                share={total ? i.clicks / total : 0}
                bar={max ? i.clicks / max : 0}
                data={{ "data-label": i.label || "Unknown" }}
              />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const named = (label: string) => (label === "direct" || label === "unknown" ? labelCase(label) : label);

const NO_CITY_DB = "No data for this period. Regions and cities need a GeoIP City database (GEOIP_DB).";

/** Regions and cities (GeoIP City database), referring pages (shown without their scheme) and the short URL's UTM values. */
function FinerBreakdowns({ data }: { data: PeriodData }) {
  return (
    <>
      <Breakdown title="Regions" testId="breakdown-regions" empty={NO_CITY_DB} items={data.regions?.map((x) => ({ ...x, label: `${x.name} (${x.region})` }))} />
      <Breakdown title="Cities" testId="breakdown-cities" empty={NO_CITY_DB} items={data.cities?.map((x) => ({ ...x, label: `${x.city} (${x.region ?? x.country})` }))} />
      <Breakdown title="Referring pages" testId="breakdown-referrer-urls" items={data.referrer_urls?.map((x) => ({ ...x, label: x.referrer_url.replace(/^https?:\/\//, "") }))} />
      <Breakdown
        title="UTM campaigns"
        testId="breakdown-utm-campaigns"
        empty="No visits with UTM parameters on the short URL (?utm_campaign=…) in this period."
        items={data.utm_campaigns?.map((x) => ({ ...x, label: x.utm_campaign }))}
      />
      <Breakdown title="UTM sources" testId="breakdown-utm-sources" items={data.utm_sources?.map((x) => ({ ...x, label: x.utm_source }))} />
      <Breakdown title="UTM mediums" testId="breakdown-utm-mediums" items={data.utm_mediums?.map((x) => ({ ...x, label: x.utm_medium }))} />
    </>
  );
}

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
        <FinerBreakdowns data={data} />
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
      <ColumnsHead visitors />
      <ul className="hbars">
        {(["link", "qr"] as const).map((s) => {
          const row = by(s);
          const share = total ? row.clicks / total : 0;
          return (
            <Row
              key={s}
              testId={`source-${s}`}
              label={s === "link" ? "Short link" : "QR code scans"}
              clicks={row.clicks}
              visitors={row.visitors}
              share={share}
              bar={share}
              fill={s === "qr" ? "hbar-fill-qr" : undefined}
            />
          );
        })}
      </ul>
      <p className="muted small">A QR code from snip opens the short link with ?qr=1: its scans are counted apart from clicks on the link.</p>
    </section>
  );
}
