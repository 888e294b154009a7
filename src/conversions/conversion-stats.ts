// Leads, sales and revenue beside clicks (docs/conversions.md, Statistics): over a period, per link or per
// account (or a filtered set of its links), and per destination of a link. Read straight from the conversion
// tables, so a lead recorded is in the next answer. Revenue is net of refunds, per currency, never summed across
// currencies; a destination is the click's (null, the link's url, is "default" as in the click statistics).
import type { Db } from "../storage/db.js";

export interface ConversionTotals {
  leads: number;
  sales: number;
  /** Currency (ISO 4217) -> minor units, net of refunds. */
  revenue: Record<string, number>;
}

const DEFAULT_DESTINATION = "default";
/** Link ids per query when a filtered set is read. */
const CHUNK = 500;

function empty(): ConversionTotals {
  return { leads: 0, sales: 0, revenue: {} };
}

type Scope = { linkIds: string[] } | { ownerId: string };

async function rows(db: Db, scope: Scope, startMs: number, endMs: number) {
  const chunks =
    "linkIds" in scope ? Array.from({ length: Math.ceil(scope.linkIds.length / CHUNK) }, (_, i) => scope.linkIds.slice(i * CHUNK, (i + 1) * CHUNK)) : [null];
  const leads: Array<{ destination: string | null }> = [];
  const sales: Array<{ destination: string | null; currency: string; amount: number; refunded: number }> = [];
  for (const ids of chunks) {
    if (ids !== null && ids.length === 0) continue;
    let lq = db.selectFrom("conversion_leads").select("destination").where("created_at", ">=", startMs).where("created_at", "<", endMs);
    let sq = db
      .selectFrom("conversion_sales")
      .select(["destination", "currency", "amount", "refunded"])
      .where("created_at", ">=", startMs)
      .where("created_at", "<", endMs);
    if (ids === null) {
      const ownerId = (scope as { ownerId: string }).ownerId;
      lq = lq.where("owner_id", "=", ownerId).where("link_id", "is not", null);
      sq = sq.where("owner_id", "=", ownerId).where("link_id", "is not", null);
    } else {
      lq = lq.where("link_id", "in", ids);
      sq = sq.where("link_id", "in", ids);
    }
    const [l, s] = await Promise.all([lq.execute(), sq.execute()]);
    leads.push(...l);
    sales.push(...s.map((r) => ({ destination: r.destination, currency: r.currency, amount: Number(r.amount), refunded: Number(r.refunded) })));
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

/** The period's totals of links attributed to `scope` (every link of an owner, or the links named). */
export async function conversionTotals(db: Db, scope: Scope, startMs: number, endMs: number): Promise<ConversionTotals> {
  const { leads, sales } = await rows(db, scope, startMs, endMs);
  const t = empty();
  for (let i = 0; i < leads.length; i++) add(t);
  for (const s of sales) add(t, s);
  return t;
}

/** One link's period: its totals, and the same per destination code (default, rule:N, ios, android, variant:N). */
export async function linkConversions(
  db: Db,
  linkId: string,
  startMs: number,
  endMs: number,
): Promise<ConversionTotals & { byDestination: Map<string, ConversionTotals> }> {
  const { leads, sales } = await rows(db, { linkIds: [linkId] }, startMs, endMs);
  const total = empty();
  const byDestination = new Map<string, ConversionTotals>();
  const of = (d: string | null) => {
    const key = d ?? DEFAULT_DESTINATION;
    let t = byDestination.get(key);
    if (!t) byDestination.set(key, (t = empty()));
    return t;
  };
  for (const l of leads) {
    add(total);
    add(of(l.destination));
  }
  for (const s of sales) {
    add(total, s);
    add(of(s.destination), s);
  }
  return { ...total, byDestination };
}
