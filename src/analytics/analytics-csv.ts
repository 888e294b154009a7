// Account analytics as CSV: what the page shows, one section after the other (totals, series, top links,
// each breakdown), quoted and neutralised as every export is (clicks/csv.ts). With conversions (Business and up)
// the totals, series, links and breakdown sections end with leads, sales and one revenue_<CURRENCY> column per
// currency of the range (minor units, net of refunds), after the columns they always had; with app figures in the
// range, the totals end with store visits, installs and opens (docs/deep-links.md).
import type { Transform } from "node:stream";
import type { Analytics } from "../contract/analytics.js";
import { toCsv } from "../clicks/csv.js";
import { type Converted, conversionColumns } from "../conversions/stats-rows.js";

type Cell = string | number;

function change(c: number | null | undefined): Cell {
  return c === null || c === undefined ? "" : c;
}

/** The totals' app columns, when the range has app figures (docs/deep-links.md): after the conversions'. */
const APP_HEADER = ["store_visits", "installs", "opens", "installs_deterministic", "installs_probabilistic"];

function* records(a: Analytics): Generator<Cell[]> {
  const conv = conversionColumns(a);
  const apps = a.apps;
  yield [
    "from",
    "to",
    "tz",
    "clicks",
    "visitors",
    "qr",
    "previous_clicks",
    "previous_visitors",
    "previous_qr",
    "change_clicks",
    "change_visitors",
    "change_qr",
    ...conv.header,
    ...(apps ? APP_HEADER : []),
  ];
  yield [
    a.from,
    a.to,
    a.tz,
    a.range_clicks ?? 0,
    a.range_visitors ?? 0,
    a.range_qr ?? 0,
    a.previous?.clicks ?? "",
    a.previous?.visitors ?? "",
    a.previous?.qr ?? "",
    change(a.change?.clicks),
    change(a.change?.visitors),
    change(a.change?.qr),
    ...conv.cells(a),
    ...(apps ? [apps.store_visits, apps.installs, apps.opens, apps.installs_by_match.deterministic, apps.installs_by_match.probabilistic] : []),
  ];
  yield [];
  yield [a.granularity ?? "day", "clicks", "visitors", "qr", ...conv.header];
  for (const p of a.series ?? []) yield [p.label, p.clicks, p.visitors, p.qr, ...conv.cells(p)];
  yield [];
  yield ["link", "short_url", "url", "title", "clicks", "visitors", ...conv.header];
  for (const l of a.links) yield [l.alias, l.short_url, l.url, l.title ?? "", l.clicks, l.visitors, ...conv.cells(l)];
  const sections: Array<[string, Array<Record<string, unknown> & Converted> | undefined, boolean]> = [
    ["source", a.sources, false],
    ["country", a.countries, true],
    ["device", a.devices, true],
    ["browser", a.browsers, true],
    ["os", a.os, true],
    ["referrer", a.referrers, true],
    ["referrer_url", a.referrer_urls, false],
    ["utm_source", a.utm_sources, true],
    ["utm_medium", a.utm_mediums, true],
    ["utm_campaign", a.utm_campaigns, true],
    ["utm_term", a.utm_terms, true],
    ["utm_content", a.utm_contents, true],
  ];
  for (const [key, rows, converted] of sections) {
    yield [];
    yield [key, "clicks", "visitors", ...(converted ? conv.header : [])];
    for (const r of rows ?? []) yield [r[key] as string, r.clicks as number, r.visitors as number, ...(converted ? conv.cells(r) : [])];
  }
  yield [];
  yield ["region", "name", "clicks", "visitors"];
  for (const r of a.regions ?? []) yield [r.region, r.name, r.clicks, r.visitors];
  yield [];
  yield ["city", "country", "region", "clicks", "visitors"];
  for (const r of a.cities ?? []) yield [r.city, r.country, r.region ?? "", r.clicks, r.visitors];
}

export function analyticsCsv(a: Analytics): Transform {
  return toCsv(records(a));
}

export function analyticsFilename(a: Pick<Analytics, "from" | "to">): string {
  return `snip-analytics-${a.from}-${a.to}.csv`;
}
