// Account analytics as CSV: what the page shows, one section after the other (totals, series, top links,
// each breakdown), quoted and neutralised as every export is (clicks/csv.ts).
import type { Transform } from "node:stream";
import type { Analytics } from "../contract/analytics.js";
import { toCsv } from "../clicks/csv.js";

type Cell = string | number;

function change(c: number | null | undefined): Cell {
  return c === null || c === undefined ? "" : c;
}

function* records(a: Analytics): Generator<Cell[]> {
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
  ];
  yield [];
  yield [a.granularity ?? "day", "clicks", "visitors", "qr"];
  for (const p of a.series ?? []) yield [p.label, p.clicks, p.visitors, p.qr];
  yield [];
  yield ["link", "short_url", "url", "title", "clicks", "visitors"];
  for (const l of a.links) yield [l.alias, l.short_url, l.url, l.title ?? "", l.clicks, l.visitors];
  const sections: Array<[string, Array<Record<string, string | number>> | undefined]> = [
    ["source", a.sources],
    ["country", a.countries],
    ["device", a.devices],
    ["browser", a.browsers],
    ["os", a.os],
    ["referrer", a.referrers],
    ["referrer_url", a.referrer_urls],
    ["utm_source", a.utm_sources],
    ["utm_medium", a.utm_mediums],
    ["utm_campaign", a.utm_campaigns],
    ["utm_term", a.utm_terms],
    ["utm_content", a.utm_contents],
  ];
  for (const [key, rows] of sections) {
    yield [];
    yield [key, "clicks", "visitors"];
    for (const r of rows ?? []) yield [r[key] as string, r.clicks as number, r.visitors as number];
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
