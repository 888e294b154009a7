// The period's breakdowns (countries, devices, browsers, systems, referrers; regions, cities, referring pages and
// UTM values) with clicks and visitors, and the split between the short link itself and its QR codes. When the
// period has conversions (Business and up), rows also show their leads, sales and revenue per currency; the rows
// then scroll sideways inside their card on a narrow screen rather than widen the page.
import type { ReactNode } from "react";
import { RevenueText } from "./Conversions";
import { countryName } from "./parts";
import "./stats.css";
import { labelCase } from "@contract/tables";
import type { PeriodData } from "./period";
import { BreakAt } from "../break-at";
import { formatNumber } from "../numbers";

/** A row's conversions: absent from the answer when the period has none (docs/conversions.md, Statistics). */
export interface RowConversions {
  leads?: number;
  sales?: number;
  revenue?: Record<string, number>;
}

interface Item extends RowConversions {
  label: string;
  clicks: number;
  /** null: not counted for this row (shown "—" with the reason), not zero. */
  visitors?: number | null;
}

/** The rows carry conversion figures (the answer adds them to every row only when the period has a lead or a sale). */
export function hasRowConversions(rows: RowConversions[] | undefined): boolean {
  return !!rows?.some((r) => r.leads !== undefined);
}

/** The breakdowns' grid: two cards a row instead of three when their rows carry conversion columns. */
export function wideGrid(lists: (RowConversions[] | undefined)[]): string {
  return lists.some(hasRowConversions) ? "breakdowns breakdowns-wide" : "breakdowns";
}

/**
 * Its columns need more room than a phone's card: they scroll inside it (the page itself never widens). The
 * scrolling box takes the keyboard's focus, so arrow keys scroll it too.
 */
export function Wide({ on, label, children }: { on: boolean; label: string; children: ReactNode }) {
  if (!on) return <>{children}</>;
  return (
    <div className="hbar-scroll" data-testid="conversion-columns" tabIndex={0} role="group" aria-label={`${label}: clicks, leads, sales and revenue`}>
      <div className="hbar-wide">{children}</div>
    </div>
  );
}

/** Why a row has no visitors figure: the destination's UTM values are not per visit. */
const UNCOUNTED_VISITORS = "Not counted: visitors are counted by the short URL's own UTM values, and these clicks had none";

/** The columns' names above a list of rows. */
export function ColumnsHead({ visitors, share = true, conversions = false }: { visitors: boolean; share?: boolean; conversions?: boolean }) {
  return (
    <div className="hbar-text hbar-head muted small" aria-hidden="true">
      <span className="hbar-label" />
      <span className="hbar-num">Clicks</span>
      {visitors ? <span className="hbar-num">Visitors</span> : null}
      {share ? <span className="hbar-num hbar-share">Share</span> : null}
      {conversions ? (
        <>
          <span className="hbar-num">Leads</span>
          <span className="hbar-num">Sales</span>
          <span className="hbar-num hbar-revenue">Revenue</span>
        </>
      ) : null}
    </div>
  );
}

/** A row's leads, sales and revenue (each currency apart); "—" where the row has no figures (not counted). */
function ConversionCells({ c }: { c: RowConversions | null }) {
  if (c === null || c.leads === undefined)
    return (
      <>
        <span className="hbar-num muted">—</span>
        <span className="hbar-num muted">—</span>
        <span className="hbar-num hbar-revenue muted">—</span>
      </>
    );
  return (
    <>
      <span className="hbar-num" title="Leads" data-testid="row-leads">
        {formatNumber(c.leads)}
      </span>
      <span className="hbar-num" title="Sales" data-testid="row-sales">
        {formatNumber(c.sales ?? 0)}
      </span>
      <span className="hbar-num hbar-revenue" title="Revenue">
        <RevenueText revenue={c.revenue} testId="row-revenue" />
      </span>
    </>
  );
}

/** One row: its label, clicks, visitors (when shown) and share, over a bar as long as `bar` (0 to 1). */
export function Row(props: {
  label: ReactNode;
  title?: string;
  clicks: number;
  visitors?: number | null;
  share?: number;
  bar: number;
  fill?: string;
  testId?: string;
  data?: Record<string, string>;
  /** Shown as columns when given: null for a row whose conversions are not counted. */
  conversions?: RowConversions | null;
}) {
  const { label, title, clicks, visitors, share, bar, fill, testId, data, conversions } = props;
  return (
    <li className="hbar" data-testid={testId} data-clicks={clicks} data-visitors={visitors ?? undefined} {...data}>
      <div className="hbar-text">
        <span className="hbar-label" title={title}>
          {label}
        </span>
        <span className="hbar-num" title="Clicks">
          {formatNumber(clicks)}
        </span>
        {visitors === null ? (
          <span className="hbar-num muted" title={UNCOUNTED_VISITORS} data-testid="visitors-uncounted">
            —
          </span>
        ) : visitors !== undefined ? (
          <span className="hbar-num" title="Visitors">
            {formatNumber(visitors)}
          </span>
        ) : null}
        {share !== undefined ? <span className="hbar-num hbar-share muted">{Math.round(share * 100)}%</span> : null}
        {conversions !== undefined ? <ConversionCells c={conversions} /> : null}
      </div>
      <div className="hbar-track" aria-hidden="true">
        <div className={`hbar-fill${fill ? ` ${fill}` : ""}`} style={{ width: `${bar > 0 ? Math.max(2, bar * 100) : 0}%` }} />
      </div>
    </li>
  );
}

/** One breakdown: the ten with most clicks, each with its visitors (when the plan shows them) and its share. */
export function Breakdown({
  title,
  items,
  testId,
  empty,
  note,
}: {
  title: string;
  items: (Item & { title?: string })[] | undefined;
  testId: string;
  empty?: string;
  note?: string;
}) {
  // A value with conversions and no click in the period (its click was before it) is listed too, after the others.
  const list = (items ?? []).filter((i) => i.clicks > 0 || (i.leads ?? 0) + (i.sales ?? 0) > 0).sort((a, b) => b.clicks - a.clicks);
  const total = list.reduce((s, i) => s + i.clicks, 0);
  const visitors = list.some((i) => typeof i.visitors === "number");
  const conversions = hasRowConversions(list);
  return (
    <section className="card breakdown" data-testid={testId}>
      <h2>{title}</h2>
      {list.length === 0 ? (
        <p className="muted small">{empty ?? "No data for this period."}</p>
      ) : (
        <>
          <Wide on={conversions} label={title}>
            <ColumnsHead visitors={visitors} conversions={conversions} />
            <ul className="hbars">
              {list.slice(0, 10).map((i) => (
                <Row
                  key={i.label}
                  label={i.label ? <BreakAt text={i.label} /> : "Unknown"}
                  title={i.title ?? (i.label || "Unknown")}
                  clicks={i.clicks}
                  visitors={visitors ? (i.visitors === null ? null : (i.visitors ?? 0)) : undefined}
                  share={total ? i.clicks / total : 0}
                  // The bar is the share printed beside it, not a length against the largest row.
                  bar={total ? i.clicks / total : 0}
                  data={{ "data-label": i.label || "Unknown" }}
                  conversions={conversions ? (i.leads === undefined ? null : i) : undefined}
                />
              ))}
            </ul>
          </Wide>
        </>
      )}
      {note ? <p className="muted small hbar-note">{note}</p> : null}
    </section>
  );
}

const named = (label: string) => (label === "direct" || label === "unknown" ? labelCase(label) : label);

const NO_CITY_DB = "No data for this period. Regions and cities need a GeoIP City database (GEOIP_DB).";

/**
 * A UTM breakdown: the short URL's own values (?utm_campaign=… on the short link), and, when the destination
 * carries one (the UTM builder puts it there), the clicks without a value of their own under it, marked "destination".
 */
function utmItems(
  rows: ({ clicks: number; visitors?: number; value: string } & RowConversions)[] | undefined,
  destination: string | undefined,
  clicks: number,
): Item[] | undefined {
  const value = destination;
  if (!rows && !value) return undefined;
  const own = (rows ?? []).map((r) => ({ label: r.value, clicks: r.clicks, visitors: r.visitors, leads: r.leads, sales: r.sales, revenue: r.revenue }));
  const rest = clicks - own.reduce((n, r) => n + r.clicks, 0);
  // Visitors are kept per value of the short URL's own parameters only: the destination's row has none to show.
  return value && rest > 0 ? [...own, { label: `${value} (destination)`, clicks: rest, visitors: null }] : own;
}

function destinationUtm(destination: string | undefined): ((key: string) => string | null) | null {
  if (!destination) return null;
  try {
    const params = new URL(destination).searchParams;
    return (key) => params.get(key);
  } catch {
    return null;
  }
}

const UTM_NOTE =
  "Counts the short URL's own UTM values and, for the other clicks, the UTM values in the link's destination (clicks only: “—” where visitors are not counted).";

/** Regions and cities (GeoIP City database), referring pages (shown without their scheme, whole on hover) and UTM values. */
function FinerBreakdowns({ data, destination }: { data: PeriodData; destination?: string }) {
  const clicks = data.range_clicks ?? 0;
  const dest = destinationUtm(destination);
  const utm = (
    title: string,
    testId: string,
    key: "utm_campaign" | "utm_source" | "utm_medium",
    rows: ({ clicks: number; visitors?: number; value: string } & RowConversions)[] | undefined,
  ) => (
    <Breakdown
      title={title}
      testId={testId}
      empty={`No visits with a ${key} on the short URL${destination ? " or in the destination" : ""} in this period.`}
      note={destination ? UTM_NOTE : "Counts the UTM values of the short URL visited (?utm_campaign=…)."}
      items={utmItems(rows, dest?.(key) ?? undefined, clicks)}
    />
  );
  return (
    <>
      <Breakdown title="Regions" testId="breakdown-regions" empty={NO_CITY_DB} items={data.regions?.map((x) => ({ ...x, label: `${x.name} (${x.region})` }))} />
      <Breakdown
        title="Cities"
        testId="breakdown-cities"
        empty={NO_CITY_DB}
        items={data.cities?.map((x) => ({ ...x, label: `${x.city} (${x.region ?? x.country})` }))}
      />
      <Breakdown
        title="Referring pages"
        testId="breakdown-referrer-urls"
        items={data.referrer_urls?.map((x) => ({ ...x, label: x.referrer_url.replace(/^https?:\/\//, ""), title: x.referrer_url }))}
      />
      {utm(
        "UTM campaigns",
        "breakdown-utm-campaigns",
        "utm_campaign",
        data.utm_campaigns?.map((x) => ({ ...x, value: x.utm_campaign })),
      )}
      {utm(
        "UTM sources",
        "breakdown-utm-sources",
        "utm_source",
        data.utm_sources?.map((x) => ({ ...x, value: x.utm_source })),
      )}
      {utm(
        "UTM mediums",
        "breakdown-utm-mediums",
        "utm_medium",
        data.utm_mediums?.map((x) => ({ ...x, value: x.utm_medium })),
      )}
    </>
  );
}

/** Every breakdown the answer has, and a hint when no country could be told. */
export function Breakdowns({ data, destination }: { data: PeriodData; destination?: string }) {
  return (
    <>
      <div className={wideGrid([data.countries, data.devices, data.browsers, data.os, data.referrers, data.utm_sources])}>
        <Breakdown title="Countries" testId="breakdown-countries" items={data.countries?.map((x) => ({ ...x, label: countryName(x.country) }))} />
        <Breakdown title="Devices" testId="breakdown-devices" items={data.devices?.map((x) => ({ ...x, label: labelCase(x.device) }))} />
        <Breakdown title="Browsers" testId="breakdown-browsers" items={data.browsers?.map((x) => ({ ...x, label: labelCase(x.browser) }))} />
        {data.os ? <Breakdown title="Operating systems" testId="breakdown-os" items={data.os.map((x) => ({ ...x, label: labelCase(x.os) }))} /> : null}
        {data.referrers ? (
          <Breakdown title="Referrers" testId="breakdown-referrers" items={data.referrers.map((x) => ({ ...x, label: named(x.referrer) }))} />
        ) : null}
        <FinerBreakdowns data={data} destination={destination} />
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
  const by = (s: NonNullable<PeriodData["sources"]>[number]["source"]) => data.sources?.find((x) => x.source === s) ?? { clicks: 0, visitors: 0 };
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
      <p className="muted small" data-testid="sources-visitors-note">
        Each visitor counts once a day, under the source of their first click: someone who opened the short link and then scanned its code adds a scan to QR
        code scans, and stays a visitor of the short link.
      </p>
    </section>
  );
}
