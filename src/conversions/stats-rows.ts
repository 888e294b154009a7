// Conversions written into a statistics answer (docs/conversions.md, Statistics): each breakdown row, each point
// of the series (and the daily or hourly arrays), each destination and top link gets its leads, sales and revenue;
// a value that has conversions but no row (its clicks outside the range or the top) is added after the others
// with 0 clicks. Destinations, links and the range also get leads per click and sales per lead. A range without
// any lead or sale keeps the answer as it was (the range's zero totals alone): rows grow only where there is data.
import type { Db } from "../storage/db.js";
import type { DayRange } from "../clicks/range.js";
import { daysOf } from "../clicks/range.js";
import { type ConversionDimension, type ConversionFigures, type ConversionTotals, emptyTotals, linkConversions } from "./conversion-stats.js";

/** The answer's breakdown arrays and the dimension each holds. */
const ARRAYS = [
  ["countries", "country"],
  ["devices", "device"],
  ["browsers", "browser"],
  ["os", "os"],
  ["referrers", "referrer"],
  ["utm_sources", "utm_source"],
  ["utm_mediums", "utm_medium"],
  ["utm_campaigns", "utm_campaign"],
  ["utm_terms", "utm_term"],
  ["utm_contents", "utm_content"],
] as const satisfies ReadonlyArray<readonly [string, ConversionDimension]>;

type BreakdownRow = { clicks: number; visitors: number } & Record<string, unknown>;

export interface Rates {
  /** Leads / clicks; null without clicks. */
  leads_per_click: number | null;
  /** Sales / leads; null without leads. */
  sales_per_lead: number | null;
}

export function rates(clicks: number, t: Pick<ConversionTotals, "leads" | "sales">): Rates {
  return { leads_per_click: clicks === 0 ? null : t.leads / clicks, sales_per_lead: t.leads === 0 ? null : t.sales / t.leads };
}

function copy(t: ConversionTotals | undefined): ConversionTotals {
  return t ? { leads: t.leads, sales: t.sales, revenue: { ...t.revenue } } : emptyTotals();
}

/** The rows with their conversions, then the values with conversions and no row (most leads, then sales, then by value). */
function withRows<R extends BreakdownRow>(rows: R[], key: ConversionDimension, byValue: Map<string, ConversionTotals>): Array<R & ConversionTotals> {
  const seen = new Set<string>();
  const out = rows.map((r) => {
    seen.add(r[key] as string);
    return { ...r, ...copy(byValue.get(r[key] as string)) };
  });
  const extra = [...byValue]
    .filter(([v]) => !seen.has(v))
    .sort(([va, a], [vb, b]) => b.leads - a.leads || b.sales - a.sales || (va < vb ? -1 : va > vb ? 1 : 0))
    .map(([v, t]) => ({ [key]: v, clicks: 0, visitors: 0, ...copy(t) }) as unknown as R & ConversionTotals);
  return [...out, ...extra];
}

type Answer = Record<string, unknown> & {
  range_clicks?: number;
  series?: Array<Record<string, unknown>>;
  daily?: Array<Record<string, unknown>>;
  hourly?: Array<Record<string, unknown>>;
  destinations?: Array<{ destination: string; clicks: number } & Record<string, unknown>>;
};

/**
 * The answer with its conversions: the range's totals and rates, each breakdown row, each point (`figures.points`
 * were counted over the answer's series points; daily and hourly hold the same points when present).
 */
export function withConversions<A extends Answer>(answer: A, figures: ConversionFigures): A {
  const { byDestination, byValue, points, byLink: _links, ...totals } = figures;
  const out: Record<string, unknown> = { ...answer, ...totals };
  if (!hasConversions(totals)) {
    // Nothing converted in the range: the totals (0) and the destinations' figures alone, as before rows had any.
    if (answer.destinations !== undefined) out.destinations = answer.destinations.map((d) => ({ ...d, ...emptyTotals() }));
    return out as A;
  }
  if (answer.range_clicks !== undefined) Object.assign(out, rates(answer.range_clicks, totals));
  for (const [name, key] of ARRAYS) {
    const rows = answer[name] as BreakdownRow[] | undefined;
    if (rows !== undefined) out[name] = withRows(rows, key, byValue[key]);
  }
  const pointed = (list: Array<Record<string, unknown>> | undefined) => list?.map((p, i) => ({ ...p, ...copy(points[i]) }));
  for (const name of ["series", "daily", "hourly"] as const) if (answer[name] !== undefined) out[name] = pointed(answer[name]);
  if (answer.destinations !== undefined) {
    out.destinations = answer.destinations.map((d) => {
      const t = copy(byDestination.get(d.destination));
      return { ...d, ...t, ...rates(d.clicks, t) };
    });
  }
  return out as A;
}

/** The range has a lead or a sale: rows, points and links get conversion fields (and the CSV its columns) only then. */
export function hasConversions(t: Converted): boolean {
  return (t.leads ?? 0) + (t.sales ?? 0) > 0;
}

/** A top link's row with its conversions and rates (the row as it was when the range has none). */
export function linkWithConversions<L extends { link_id: string; clicks: number }>(link: L, figures: ConversionFigures): L | (L & ConversionTotals & Rates) {
  if (!hasConversions(figures)) return link;
  const t = copy(figures.byLink.get(link.link_id));
  return { ...link, ...t, ...rates(link.clicks, t) };
}

/**
 * The CSV export's daily conversion columns (its daily part is by UTC day): leads, sales and one
 * revenue_<CURRENCY> per currency of those days, in alphabetical order, minor units net of refunds.
 */
export async function dailyConversionColumns(db: Db, linkId: string, days: DayRange): Promise<{ header: string[]; cells: (date: string) => number[] }> {
  const dates = daysOf(days);
  const figures = await linkConversions(db, linkId, {
    startMs: days.startMs,
    endMs: days.endMs,
    points: dates.map((d) => ({ start: Date.parse(`${d}T00:00:00Z`), label: d })),
  });
  const index = new Map(dates.map((d, i) => [d, i]));
  const columns = conversionColumns(figures);
  return { header: columns.header, cells: (date) => columns.cells(figures.points[index.get(date) ?? -1] ?? emptyTotals()) };
}

export type Converted = { leads?: number; sales?: number; revenue?: Record<string, number> };

/**
 * CSV columns of conversions for a range's totals `t` (none when the range has no lead or sale, or no figures: a
 * plan without conversions): leads, sales, then one revenue_<CURRENCY> per currency of the range, alphabetical, minor units net of refunds.
 */
export function conversionColumns(t: Converted): { header: string[]; cells: (r: Converted) => number[] } {
  if (!hasConversions(t)) return { header: [], cells: () => [] };
  const currencies = Object.keys(t.revenue ?? {}).sort();
  return {
    header: ["leads", "sales", ...currencies.map((c) => `revenue_${c}`)],
    cells: (r) => [r.leads ?? 0, r.sales ?? 0, ...currencies.map((c) => r.revenue?.[c] ?? 0)],
  };
}
