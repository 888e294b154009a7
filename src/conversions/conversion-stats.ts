// Leads, sales and revenue beside clicks (docs/conversions.md, Statistics): over a period, per link or per
// account (or a filtered set of its links), and the same per destination, per link, per point of the series (in
// the period's time zone) and per value of the click each conversion is attributed to (its country, device,
// browser, OS, referrer host and UTM values). Read straight from the conversion tables (two indexed statements,
// each lead or sale joined to its click by primary key), so a lead recorded is in the next answer. Revenue is net
// of refunds, per currency, never summed across currencies; a destination is the click's (null, the link's url,
// is "default" as in the click statistics); a lead's point is its own time, a sale's its own.
import type { Db } from "../storage/db.js";
import { type Point, pointIndex } from "../clicks/period.js";
import { UTM_KEYS, utmValues } from "../clicks/utm-values.js";

export interface ConversionTotals {
  leads: number;
  sales: number;
  /** Currency (ISO 4217) -> minor units, net of refunds. */
  revenue: Record<string, number>;
}

/** The click values conversions are broken down by, named as the statistics' arrays name their key. */
export const CONVERSION_DIMENSIONS = ["country", "device", "browser", "os", "referrer", ...UTM_KEYS] as const;
export type ConversionDimension = (typeof CONVERSION_DIMENSIONS)[number];

export interface ConversionFigures extends ConversionTotals {
  byDestination: Map<string, ConversionTotals>;
  byLink: Map<string, ConversionTotals>;
  /** Per value of each dimension; a UTM key only for conversions whose click had it (as clicks' UTM rows). */
  byValue: Record<ConversionDimension, Map<string, ConversionTotals>>;
  /** One per point of the period asked (empty when no points were given). */
  points: ConversionTotals[];
}

const DEFAULT_DESTINATION = "default";
/** Link ids per query when a filtered set is read. */
const CHUNK = 500;

export function emptyTotals(): ConversionTotals {
  return { leads: 0, sales: 0, revenue: {} };
}

type Scope = { linkIds: string[] } | { ownerId: string };

/** What a conversion row carries: its link, destination and time, and its click's values (null: no click stored). */
interface Row {
  link_id: string | null;
  destination: string | null;
  created_at: number;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  referrer_host: string | null;
  utm: string | null;
}
type Sale = Row & { currency: string; amount: number; refunded: number };

const CLICK_VALUES = ["tc.country", "tc.device", "tc.browser", "tc.os", "tc.referrer_host", "tc.utm"] as const;

async function rows(db: Db, scope: Scope, startMs: number, endMs: number) {
  const chunks =
    "linkIds" in scope ? Array.from({ length: Math.ceil(scope.linkIds.length / CHUNK) }, (_, i) => scope.linkIds.slice(i * CHUNK, (i + 1) * CHUNK)) : [null];
  const leads: Row[] = [];
  const sales: Sale[] = [];
  for (const ids of chunks) {
    if (ids !== null && ids.length === 0) continue;
    // Indexed by (link_id, created_at) or (owner_id, created_at); the click by its primary key.
    let lq = db
      .selectFrom("conversion_leads as c")
      .leftJoin("tracked_clicks as tc", "tc.id", "c.click_id")
      .select(["c.link_id", "c.destination", "c.created_at", ...CLICK_VALUES])
      .where("c.created_at", ">=", startMs)
      .where("c.created_at", "<", endMs);
    let sq = db
      .selectFrom("conversion_sales as c")
      .leftJoin("tracked_clicks as tc", "tc.id", "c.click_id")
      .select(["c.link_id", "c.destination", "c.created_at", "c.currency", "c.amount", "c.refunded", ...CLICK_VALUES])
      .where("c.created_at", ">=", startMs)
      .where("c.created_at", "<", endMs);
    if (ids === null) {
      const ownerId = (scope as { ownerId: string }).ownerId;
      lq = lq.where("c.owner_id", "=", ownerId).where("c.link_id", "is not", null);
      sq = sq.where("c.owner_id", "=", ownerId).where("c.link_id", "is not", null);
    } else {
      lq = lq.where("c.link_id", "in", ids);
      sq = sq.where("c.link_id", "in", ids);
    }
    const [l, s] = await Promise.all([lq.execute(), sq.execute()]);
    for (const r of l) leads.push({ ...r, created_at: Number(r.created_at) });
    for (const r of s) sales.push({ ...r, created_at: Number(r.created_at), amount: Number(r.amount), refunded: Number(r.refunded) });
  }
  return { leads, sales };
}

function add(t: ConversionTotals, sale?: { currency: string; amount: number; refunded: number }): void {
  if (!sale) {
    t.leads++;
    return;
  }
  t.sales++;
  t.revenue[sale.currency] = (t.revenue[sale.currency] ?? 0) + sale.amount - sale.refunded;
}

function of(map: Map<string, ConversionTotals>, key: string): ConversionTotals {
  let t = map.get(key);
  if (!t) map.set(key, (t = emptyTotals()));
  return t;
}

/** A conversion's value per dimension, as the click statistics name it ("unknown", "direct"). */
function valuesOf(r: Row): Array<[ConversionDimension, string]> {
  const out: Array<[ConversionDimension, string]> = [
    ["country", r.country ?? "unknown"],
    ["device", r.device ?? "unknown"],
    ["browser", r.browser ?? "unknown"],
    ["os", r.os ?? "unknown"],
    ["referrer", r.referrer_host ?? "unknown"],
  ];
  if (r.utm !== null) for (const [k, v] of Object.entries(utmValues(r.utm))) out.push([k as ConversionDimension, v]);
  return out;
}

/** The period's totals of links attributed to `scope` (every link of an owner, or the links named). */
export async function conversionTotals(db: Db, scope: Scope, startMs: number, endMs: number): Promise<ConversionTotals> {
  const { byDestination: _d, byLink: _l, byValue: _v, points: _p, ...totals } = await conversionFigures(db, scope, { startMs, endMs, points: [] });
  return totals;
}

/** Everything a statistics answer shows of the period's conversions (`points`: the series' points, in time order). */
export async function conversionFigures(db: Db, scope: Scope, period: { startMs: number; endMs: number; points: Point[] }): Promise<ConversionFigures> {
  const { leads, sales } = await rows(db, scope, period.startMs, period.endMs);
  const out: ConversionFigures = {
    ...emptyTotals(),
    byDestination: new Map(),
    byLink: new Map(),
    byValue: Object.fromEntries(CONVERSION_DIMENSIONS.map((d) => [d, new Map()])) as ConversionFigures["byValue"],
    points: period.points.map(emptyTotals),
  };
  const count = (r: Row, sale?: Sale) => {
    add(out, sale);
    add(of(out.byDestination, r.destination ?? DEFAULT_DESTINATION), sale);
    if (r.link_id !== null) add(of(out.byLink, r.link_id), sale);
    for (const [d, v] of valuesOf(r)) add(of(out.byValue[d], v), sale);
    const i = pointIndex(period.points, r.created_at);
    if (i >= 0) add(out.points[i]!, sale);
  };
  for (const l of leads) count(l);
  for (const s of sales) count(s, s);
  return out;
}

/** One link's period (its figures per destination, value and point). */
export function linkConversions(db: Db, linkId: string, period: { startMs: number; endMs: number; points: Point[] }): Promise<ConversionFigures> {
  return conversionFigures(db, { linkIds: [linkId] }, period);
}

/** What a source counted before the link was imported (Dub's totals), or null: shown beside the link's own figures. */
export async function importedConversions(db: Db, linkId: string): Promise<ConversionTotals | null> {
  const r = await db.selectFrom("link_imported_conversions").selectAll().where("link_id", "=", linkId).executeTakeFirst();
  if (!r) return null;
  let revenue: Record<string, number> = {};
  try {
    const v: unknown = JSON.parse(r.revenue);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) revenue = v as Record<string, number>;
  } catch {
    // not JSON this code wrote: no revenue shown
  }
  return { leads: Number(r.leads), sales: Number(r.sales), revenue };
}

/**
 * Whether the link sends the click id to its destination: its own choice, else its domain's, else its account's
 * default (the redirect's rule, src/links/links.ts TRACKING_SQL). The dashboard shows the funnel for such links.
 */
export async function tracksConversions(
  db: Db,
  link: { track_conversions: number | null; domain: string | null; owner_id: string | null },
  owner: { track_conversions: number },
): Promise<boolean> {
  if (link.track_conversions != null) return Number(link.track_conversions) === 1;
  if (link.domain && link.owner_id) {
    const d = await db
      .selectFrom("domains")
      .select("track_conversions")
      .where("hostname", "=", link.domain)
      .where("owner_id", "=", link.owner_id)
      .executeTakeFirst();
    if (d?.track_conversions != null) return Number(d.track_conversions) === 1;
  }
  return Number(owner.track_conversions) === 1;
}
