// Where clicks came from, finer (docs/api.md Statistics): regions and cities (GeoIP City database),
// referrer URLs and the short URL's UTM values. Their breakdown rows exist only for clicks that have the
// value, and all of them are read by one statement: the top TOP_N of each dimension.
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import { FINER, type Finer } from "./click-groups.js";
import type { Values } from "./click-values.js";
import { cityParts, regionParts } from "./describe.js";
import { type DayRange, splitByMonth } from "./range.js";
import type { RollupSource } from "./series.js";
import { utmValues } from "./utm-values.js";

/** Entries kept per breakdown (as stats.ts's TOP_N: not imported, stats.ts imports this file). */
const TOP = 50;

export type FinerTop = Array<{ value: string; clicks: number; visitors: number }>;
export type FinerTops = Record<Finer, FinerTop>;

/** What statistics answer for them (stats.ts's periodStats). */
export interface FinerStats {
  regions: Array<{ region: string; name: string; clicks: number; visitors: number }>;
  cities: Array<{ city: string; country: string; region: string | null; clicks: number; visitors: number }>;
  referrer_urls: Array<{ referrer_url: string; clicks: number; visitors: number }>;
  utm_sources: Array<{ utm_source: string; clicks: number; visitors: number }>;
  utm_mediums: Array<{ utm_medium: string; clicks: number; visitors: number }>;
  utm_campaigns: Array<{ utm_campaign: string; clicks: number; visitors: number }>;
  utm_terms: Array<{ utm_term: string; clicks: number; visitors: number }>;
  utm_contents: Array<{ utm_content: string; clicks: number; visitors: number }>;
}

type FinerFields = Pick<Values, "region" | "city" | "referrer_url" | "utm">;

/** The finer values a click or group has (those it has not are left out). */
export function finerValues(v: FinerFields): Array<[Finer, string]> {
  const out: Array<[Finer, string]> = [];
  if (v.region !== null) out.push(["region", v.region]);
  if (v.city !== null) out.push(["city", v.city]);
  if (v.referrer_url !== null) out.push(["referrer_url", v.referrer_url]);
  if (v.utm !== null) for (const [k, value] of Object.entries(utmValues(v.utm))) out.push([k as Finer, value]);
  return out;
}

export function emptyFiner(): FinerTops {
  return Object.fromEntries(FINER.map((d) => [d, []])) as unknown as FinerTops;
}

/**
 * The top TOP values of every finer dimension over UTC days from the links' or the owner's roll-ups (whole
 * months up to `monthsThrough` from the monthly roll-up where kept, the other days from the daily one), or the stored counts of
 * the values `only` (the held-back groups' values, all dimensions' together: the pairs are sorted out here).
 */
export async function topFiner(db: Db, src: RollupSource, range: DayRange, monthsThrough: string, only?: Array<[Finer, string]>): Promise<FinerTops> {
  const values = only === undefined ? undefined : [...new Set(only.map(([, v]) => v))];
  if (values !== undefined && values.length === 0) return emptyFiner();
  const parts = splitByMonth(range, monthsThrough);
  const dims = sql`dimension IN (${sql.join(FINER)})`;
  const valueIn = values === undefined ? sql`` : sql` AND value IN (${sql.join(values)})`;
  const arms = parts.days.map(
    (d) =>
      sql`SELECT dimension, value, clicks, visitors FROM ${sql.table(src.breakdown)} WHERE ${src.where} AND ${dims} AND day >= ${d.from} AND day <= ${d.to}${valueIn}`,
  );
  if (parts.months) {
    arms.unshift(
      sql`SELECT dimension, value, clicks, visitors FROM ${sql.table(src.monthly)} WHERE ${src.where} AND ${dims} AND month >= ${parts.months.from} AND month <= ${parts.months.to}${valueIn}`,
    );
  }
  const ranked = sql`SELECT dimension, value, sum(clicks) AS clicks, sum(visitors) AS visitors,
    row_number() OVER (PARTITION BY dimension ORDER BY sum(clicks) DESC, value ASC) AS rank
    FROM (${sql.join(arms, sql` UNION ALL `)}) AS u GROUP BY dimension, value HAVING sum(clicks) > 0`;
  const limit = values === undefined ? sql` WHERE rank <= ${TOP}` : sql``;
  const rows = await sql<{ dimension: string; value: string; clicks: number; visitors: number }>`SELECT dimension, value, clicks, visitors
    FROM (${ranked}) AS r${limit} ORDER BY dimension, rank`.execute(db);
  const out = emptyFiner();
  const wanted = only === undefined ? null : new Set(only.map(([d, v]) => `${d}\u0000${v}`));
  for (const r of rows.rows) {
    const d = r.dimension as Finer;
    if (wanted !== null && !wanted.has(`${d}\u0000${r.value}`)) continue;
    out[d]?.push({ value: r.value, clicks: Number(r.clicks), visitors: Number(r.visitors) });
  }
  return out;
}

/** The answer's arrays of the finer tops. */
export function finerStats(t: FinerTops): FinerStats {
  const plain = <K extends string>(key: K, rows: FinerTop) =>
    rows.map((r) => ({ [key]: r.value, clicks: r.clicks, visitors: r.visitors }) as { [P in K]: string } & { clicks: number; visitors: number });
  return {
    regions: t.region.map((r) => ({ ...regionParts(r.value), clicks: r.clicks, visitors: r.visitors })),
    cities: t.city.map((r) => ({ ...cityParts(r.value), clicks: r.clicks, visitors: r.visitors })),
    referrer_urls: plain("referrer_url", t.referrer_url),
    utm_sources: plain("utm_source", t.utm_source),
    utm_mediums: plain("utm_medium", t.utm_medium),
    utm_campaigns: plain("utm_campaign", t.utm_campaign),
    utm_terms: plain("utm_term", t.utm_term),
    utm_contents: plain("utm_content", t.utm_content),
  };
}
