// Splits that pick their winner (docs/conversions.md, Splits that pick their winner): each variant's clicks,
// leads, sales and revenue since the split began, its rate and 95 % interval toward the goal, and the periodic
// decision at the split's end (split_ends_at passed, or split_min_visits reached by every variant). A winner
// becomes the link's url and the split closes; otherwise "no clear winner" is recorded and the split goes on.
// Every instance may run the check: a decision is claimed by a conditional update, so one instance takes each.
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Db } from "../storage/db.js";
import type { Database, LinkRow } from "../storage/schema.js";
import type { Clock } from "../shared/clock.js";
import type { EventPublisher } from "../shared/events.js";
import { SPLIT_GOALS, type SplitDecision, type SplitGoal, type Variant } from "../contract/targeting.js";
import { type VariantCounts, type VariantRate, decideSplit, variantRate } from "./split-test.js";

/** How often the due splits are looked at. */
export const SPLIT_CHECK_MS = 60_000;

type SplitLink = Pick<
  LinkRow,
  "id" | "owner_id" | "domain" | "alias" | "url" | "split" | "split_goal" | "split_ends_at" | "split_min_visits" | "split_started_at" | "split_decision"
>;

/** One variant as the link's statistics show it while the split runs. */
export interface VariantFigures extends VariantRate {
  destination: string;
  url: string;
  weight: number;
  clicks: number;
  leads: number;
  sales: number;
  /** Net of refunds, per currency (minor units), never summed across currencies. */
  revenue: Record<string, number>;
}

export interface SplitFigures {
  goal: SplitGoal | null;
  started_at: string | null;
  ends_at: string | null;
  min_visits: number | null;
  /** The currency the revenue goal compares (the one with the most revenue), null without sales. */
  currency: string | null;
  variants: VariantFigures[];
}

/** The audit entry of a decision, written in its transaction (admin/'s AuditLog, handed in by the context). */
export type RecordDecision = (
  trx: Kysely<Database>,
  at: number,
  entry: { action: string; targetType: "link"; targetId: string; summary: string; before: unknown; after: unknown },
) => Promise<void>;

export interface SplitWinnerDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  audit: RecordDecision;
  /** Tells every instance's redirect cache that these addresses changed. */
  announce: (keys: Array<{ domain: string; alias: string }>) => Promise<void>;
  events: EventPublisher;
}

const SPLIT_COLUMNS = [
  "id",
  "owner_id",
  "domain",
  "alias",
  "url",
  "split",
  "split_goal",
  "split_ends_at",
  "split_min_visits",
  "split_started_at",
  "split_decision",
] as const;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isGoal = (g: string | null): g is SplitGoal => g !== null && (SPLIT_GOALS as readonly string[]).includes(g);

function variantsOf(text: string | null): Variant[] {
  if (text === null) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as Variant[]) : [];
  } catch {
    return [];
  }
}

export class SplitWinner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly deps: SplitWinnerDeps) {}

  /** What each variant did since the split (or its goal) was set: clicks from the daily roll-ups, conversions from their tables. */
  async figures(link: SplitLink): Promise<SplitFigures | null> {
    const variants = variantsOf(link.split);
    if (variants.length === 0) return null;
    const since = Number(link.split_started_at ?? 0);
    const codes = variants.map((_, i) => `variant:${i + 1}`);
    const { db } = this.deps;
    const [clickRows, leadRows, saleRows] = await Promise.all([
      db
        .selectFrom("click_breakdown")
        .select(["value", "clicks"])
        .where("link_id", "=", link.id)
        .where("dimension", "=", "destination")
        .where("value", "in", codes)
        .where("day", ">=", dayOf(since))
        .execute(),
      db
        .selectFrom("conversion_leads")
        .select("destination")
        .where("link_id", "=", link.id)
        .where("destination", "in", codes)
        .where("created_at", ">=", since)
        .execute(),
      db
        .selectFrom("conversion_sales")
        .select(["destination", "currency", "amount", "refunded"])
        .where("link_id", "=", link.id)
        .where("destination", "in", codes)
        .where("created_at", ">=", since)
        .execute(),
    ]);
    const byCurrency = new Map<string, number>();
    for (const s of saleRows) byCurrency.set(s.currency, (byCurrency.get(s.currency) ?? 0) + Number(s.amount) - Number(s.refunded));
    const currency = [...byCurrency].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
    const counts: VariantCounts[] = codes.map((code, i) => {
      const sales = saleRows.filter((s) => s.destination === code);
      const inCurrency = sales.filter((s) => s.currency === currency).map((s) => Number(s.amount) - Number(s.refunded));
      return {
        weight: Number(variants[i]!.weight),
        clicks: clickRows.filter((r) => r.value === code).reduce((n, r) => n + Number(r.clicks), 0),
        leads: leadRows.filter((r) => r.destination === code).length,
        sales: sales.length,
        revenue: { sum: inCurrency.reduce((s, a) => s + a, 0), sumSquares: inCurrency.reduce((s, a) => s + a * a, 0) },
      };
    });
    const goal = isGoal(link.split_goal) ? link.split_goal : null;
    const total = counts.reduce((n, c) => n + c.clicks, 0);
    return {
      goal,
      started_at: link.split_started_at == null ? null : new Date(Number(link.split_started_at)).toISOString(),
      ends_at: link.split_ends_at == null ? null : new Date(Number(link.split_ends_at)).toISOString(),
      min_visits: link.split_min_visits == null ? null : Number(link.split_min_visits),
      currency,
      variants: counts.map((c, i) => {
        const revenue: Record<string, number> = {};
        for (const s of saleRows) if (s.destination === codes[i]) revenue[s.currency] = (revenue[s.currency] ?? 0) + Number(s.amount) - Number(s.refunded);
        const rate = variantRate(goal ?? "leads", c, total);
        return { destination: codes[i]!, url: variants[i]!.url, weight: c.weight, clicks: c.clicks, leads: c.leads, sales: c.sales, revenue, ...rate };
      }),
    };
  }

  private async counts(link: SplitLink): Promise<{ figures: SplitFigures; counts: VariantCounts[] } | null> {
    const figures = await this.figures(link);
    if (!figures) return null;
    // The revenue goal's sample again, in the compared currency (figures() keeps only the rates).
    const counts = figures.variants.map((v) => ({ weight: v.weight, clicks: v.clicks, leads: v.leads, sales: v.sales, revenue: { sum: 0, sumSquares: 0 } }));
    if (figures.goal === "revenue" && figures.currency !== null) {
      const since = Number(link.split_started_at ?? 0);
      const rows = await this.deps.db
        .selectFrom("conversion_sales")
        .select(["destination", "amount", "refunded"])
        .where("link_id", "=", link.id)
        .where("currency", "=", figures.currency)
        .where("created_at", ">=", since)
        .execute();
      figures.variants.forEach((v, i) => {
        const amounts = rows.filter((r) => r.destination === v.destination).map((r) => Number(r.amount) - Number(r.refunded));
        counts[i]!.revenue = { sum: amounts.reduce((s, a) => s + a, 0), sumSquares: amounts.reduce((s, a) => s + a * a, 0) };
      });
    }
    return { figures, counts };
  }

  /** Decides every split whose end has come; how many decisions this instance took. */
  async runDue(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db
      .selectFrom("links")
      .select(SPLIT_COLUMNS)
      .where("split", "is not", null)
      .where("split_goal", "is not", null)
      .where("split_decision", "is", null)
      .where((eb) => eb.or([eb("split_ends_at", "<=", now), eb("split_min_visits", "is not", null)]))
      .limit(500)
      .execute();
    let decided = 0;
    for (const link of due) {
      try {
        if (await this.decide(link, now)) decided++;
      } catch (err) {
        this.deps.log.warn({ err, link: link.id }, "split decision failed");
      }
    }
    return decided;
  }

  /** The decision of one link's split if its end has come: false when not due yet or another instance took it. */
  async decide(link: SplitLink, now: number): Promise<boolean> {
    const goal = link.split_goal;
    if (!isGoal(goal)) return false;
    const found = await this.counts(link);
    if (!found) return false;
    const { figures, counts } = found;
    const ended = link.split_ends_at != null && Number(link.split_ends_at) <= now;
    const enough = link.split_min_visits != null && counts.every((c) => c.clicks >= Number(link.split_min_visits));
    if (!ended && !enough) return false;
    const verdict = decideSplit(goal, counts);
    const winner = verdict.winner === null ? null : figures.variants[verdict.winner]!;
    const why = ended ? "its end date passed" : `every variant reached ${Number(link.split_min_visits)} visits`;
    const decision: SplitDecision = {
      at: new Date(now).toISOString(),
      result: winner ? "winner" : "no_clear_winner",
      goal,
      winner: winner?.destination ?? null,
      url: winner?.url ?? null,
      summary: winner
        ? `${winner.destination} (${winner.url}) won on ${goal} with 95 % confidence once ${why}; it is now the link's destination`
        : `No clear winner on ${goal} at 95 % confidence once ${why}; the split goes on`,
    };
    const set = winner
      ? {
          url: winner.url,
          split: null,
          split_goal: null,
          split_ends_at: null,
          split_min_visits: null,
          split_started_at: null,
          split_decision: JSON.stringify(decision),
          updated_at: now,
        }
      : { split_decision: JSON.stringify(decision) };
    const took = await this.deps.db.transaction().execute(async (trx) => {
      // The claim: only the instance whose update finds the split as it read it decides (an edit meanwhile wins too).
      let q = trx.updateTable("links").set(set).where("id", "=", link.id).where("split_decision", "is", null).where("split", "=", link.split!);
      q = link.split_started_at == null ? q.where("split_started_at", "is", null) : q.where("split_started_at", "=", Number(link.split_started_at));
      const r = await q.executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await this.deps.audit(trx, now, {
        action: "link.split_decided",
        targetType: "link",
        targetId: link.id,
        summary: decision.summary,
        before: { url: link.url, split: variantsOf(link.split), goal },
        after: { url: winner?.url ?? link.url, decision, variants: figures.variants.map((v, i) => ({ ...v, z: verdict.z[i] ?? null })) },
      });
      await this.deps.events.publish("link.split_decided", { linkId: link.id, ownerId: link.owner_id, decision, within: trx });
      return true;
    });
    if (!took) return false;
    if (winner) await this.deps.announce([{ domain: link.domain, alias: link.alias }]);
    return true;
  }

  /** Looks at the due splits every SPLIT_CHECK_MS (one run at a time in this process). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runDue()
        .catch((err: unknown) => this.deps.log.warn({ err }, "split decisions failed"))
        .finally(() => (this.running = null));
    }, SPLIT_CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
