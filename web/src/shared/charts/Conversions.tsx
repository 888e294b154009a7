// What a link's clicks led to, shown where its clicks are: the funnel (clicks → leads → sales, revenue per
// currency), leads, sales and revenue per destination (rule, device, variant), and a split's test: each variant's
// rate with its 95 % interval while it runs, its decision once made. Revenue is never summed across currencies.
import type { Stats } from "@contract/stats";
import type { SplitDecision } from "@contract/targeting";
import { destinationLabel } from "../destination-label";
import { formatMoney, formatNumber, revenueEntries } from "../numbers";
import { DataTable } from "../table";
import { formatDateTime } from "../dates";
import "./conversions.css";

type Revenue = Record<string, number> | undefined;

/** A ratio as a percentage: "12.5%", and "150%" for three sales of two leads (formatShare reads a value above 1 as a percentage already). */
function percent(ratio: number): string {
  const pct = ratio * 100;
  return `${pct.toFixed(pct > 0 && pct < 10 ? 1 : 0)}%`;
}

/** "€49.00 · $12.00", or "—" without sales: each currency apart. */
export function RevenueText({ revenue, testId }: { revenue: Revenue; testId?: string }) {
  const list = revenueEntries(revenue);
  if (list.length === 0)
    return (
      <span className="muted" data-testid={testId}>
        —
      </span>
    );
  return (
    <span className="revenue-list" data-testid={testId}>
      {list.map(([currency, minor]) => (
        <span key={currency} className="revenue-item" data-currency={currency} data-minor={minor}>
          {formatMoney(minor, currency)}
        </span>
      ))}
    </span>
  );
}

/** A step's share of the step before ("20% of clicks", "150% of leads"), or nothing when the step before had none. */
function stepRate(now: number, before: number, of: string): string | null {
  return before > 0 ? `${percent(now / before)} of ${of}` : null;
}

type Imported = Stats["imported_conversions"];

/**
 * Worth a funnel: the link sends the click id (its own choice, else its domain's, else the account's), or it has
 * leads, sales or conversions imported from another shortener anyway. A Business link that tracks nothing has none.
 */
export function showsFunnel(stats: Pick<Stats, "leads" | "sales" | "tracks_conversions" | "imported_conversions">): boolean {
  if (stats.leads === undefined) return false;
  const imported = stats.imported_conversions;
  return !!stats.tracks_conversions || stats.leads + (stats.sales ?? 0) > 0 || (!!imported && imported.leads + imported.sales > 0);
}

/** "Imported from Dub: 12 leads, 3 sales, $450.00": the totals counted before the link came to snip, in no period. */
function ImportedLine({ imported }: { imported: Imported }) {
  if (!imported || imported.leads + imported.sales === 0) return null;
  return (
    <p className="muted small funnel-imported" data-testid="funnel-imported" title="Counted by Dub before the link was imported; not in this period's figures">
      Imported from Dub: {formatNumber(imported.leads)} {imported.leads === 1 ? "lead" : "leads"}, {formatNumber(imported.sales)}{" "}
      {imported.sales === 1 ? "sale" : "sales"}
      {revenueEntries(imported.revenue).length > 0 ? (
        <>
          , <RevenueText revenue={imported.revenue} testId="funnel-imported-revenue" />
        </>
      ) : null}
    </p>
  );
}

/** The funnel of the period: clicks, then leads, then sales, then revenue per currency; the imported totals apart. */
export function ConversionFunnel({
  clicks,
  leads,
  sales,
  revenue,
  note,
  imported,
}: {
  clicks: number;
  leads: number;
  sales: number;
  revenue: Revenue;
  note?: string;
  imported?: Imported;
}) {
  const steps = [
    { key: "clicks", label: "Clicks", value: clicks, rate: null },
    { key: "leads", label: "Leads", value: leads, rate: stepRate(leads, clicks, "clicks") },
    { key: "sales", label: "Sales", value: sales, rate: stepRate(sales, leads, "leads") },
  ];
  const top = Math.max(1, clicks, leads, sales);
  return (
    <section className="card funnel" aria-labelledby="funnel-heading" data-testid="conversion-funnel">
      <h2 id="funnel-heading">Conversions</h2>
      {note ? <p className="muted small">{note}</p> : null}
      <ol className="funnel-steps">
        {steps.map((s) => (
          <li key={s.key} className="funnel-step" data-testid={`funnel-${s.key}`} data-value={s.value}>
            <span className="funnel-label">{s.label}</span>
            <span className="funnel-value">{formatNumber(s.value)}</span>
            <span className="funnel-track" aria-hidden="true">
              <span className="funnel-fill" style={{ width: `${Math.max(s.value > 0 ? 3 : 0, (s.value / top) * 100)}%` }} />
            </span>
            <span className="muted small funnel-rate">{s.rate ?? ""}</span>
          </li>
        ))}
      </ol>
      <p className="funnel-revenue">
        <span className="funnel-label">Revenue</span> <RevenueText revenue={revenue} testId="funnel-revenue" />
      </p>
      <ImportedLine imported={imported} />
    </section>
  );
}

type DestinationRow = NonNullable<Stats["destinations"]>[number];

/** A rate as a percentage, "—" when it has no denominator (null). */
function rateCell(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? "—" : percent(rate);
}

/**
 * Leads, sales, revenue, leads per click and sales per lead of each destination that had clicks (default, rules,
 * device destinations, variants): which one brought the money.
 */
export function ConversionsByDestination({ rows }: { rows: DestinationRow[] }) {
  return (
    <section className="card" data-testid="conversions-by-destination">
      <h2>Conversions per destination</h2>
      <p className="muted small">What the clicks sent to each rule, device destination or variant led to in this period.</p>
      <DataTable
        frame="none"
        caption="Conversions per destination"
        columns={[
          "Destination",
          { label: "Clicks", className: "num" },
          { label: "Leads", className: "num" },
          { label: "Sales", className: "num" },
          "Revenue",
          { label: "Leads per click", className: "num" },
          { label: "Sales per lead", className: "num" },
        ]}
        empty={<p className="muted small">No clicks in this period.</p>}
      >
        {rows.map((d) => (
          <tr key={d.destination} data-testid={`conversion-row-${d.destination}`}>
            <td className="conv-row-head">
              {destinationLabel(d.destination)}
              <span className="muted small conv-url" title={d.url ?? undefined}>
                {d.url ?? "no longer on the link"}
              </span>
            </td>
            <td className="num">{formatNumber(d.clicks)}</td>
            <td className="num" data-testid={`conversion-leads-${d.destination}`}>
              {formatNumber(d.leads ?? 0)}
            </td>
            <td className="num" data-testid={`conversion-sales-${d.destination}`}>
              {formatNumber(d.sales ?? 0)}
            </td>
            <td>
              <RevenueText revenue={d.revenue} />
            </td>
            <td className="num" data-testid={`conversion-lpc-${d.destination}`}>
              {rateCell(d.leads_per_click)}
            </td>
            <td className="num" data-testid={`conversion-spl-${d.destination}`}>
              {rateCell(d.sales_per_lead)}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

type SplitTest = NonNullable<Stats["split_test"]>;

const GOAL_WORDS: Record<string, string> = {
  clicks: "share of the clicks",
  leads: "leads per click",
  sales: "sales per click",
  revenue: "revenue per click",
};

/** A rate toward the goal: a share for clicks, leads and sales, an amount per click for revenue. */
function rateText(rate: number | null, test: SplitTest): string {
  if (rate === null) return "—";
  if (test.goal === "revenue") return test.currency ? formatMoney(Math.round(rate), test.currency) : formatNumber(rate);
  return percent(rate);
}

/** The decision taken at the split's end: the winner made the link's destination, or no clear winner. */
export function SplitDecisionNote({ decision }: { decision: SplitDecision }) {
  const winner = decision.result === "winner";
  return (
    <div className={`alert ${winner ? "alert-success" : "alert-info"}`} role="status" data-testid="split-decision">
      <strong>
        {winner ? `Winner: ${destinationLabel(decision.winner ?? "")}` : "No clear winner"}
        {winner && decision.url ? ` (${decision.url})` : ""}
      </strong>
      <span className="split-decision-summary"> {decision.summary}</span>
    </div>
  );
}

/** A split while it runs: each variant's clicks, leads, sales, revenue, and its rate toward the goal with the 95 % interval. */
export function SplitTestPanel({ test, decision }: { test: SplitTest | undefined; decision: SplitDecision | null }) {
  if (!test && !decision) return null;
  const goal = test?.goal ?? decision?.goal ?? null;
  return (
    <section className="card" data-testid="split-test">
      <h2>Split test</h2>
      <p className="muted small" data-testid="split-test-goal">
        {goal ? `Goal: ${GOAL_WORDS[goal] ?? goal}` : "No goal set: the rate is leads per click"}
        {test?.ends_at ? ` · ends ${formatDateTime(test.ends_at)}` : ""}
        {test?.min_visits ? ` · ends once every variant has ${formatNumber(test.min_visits)} visits` : ""}
      </p>
      {decision ? <SplitDecisionNote decision={decision} /> : null}
      {test ? (
        <DataTable
          frame="none"
          caption="Variants of the split"
          columns={[
            "Variant",
            { label: "Clicks", className: "num" },
            { label: "Leads", className: "num" },
            { label: "Sales", className: "num" },
            "Revenue",
            { label: "Rate", className: "num" },
            "95 % interval",
          ]}
        >
          {test.variants.map((v) => (
            <tr key={v.destination} data-testid={`split-variant-${v.destination}`}>
              <td className="conv-row-head">
                {destinationLabel(v.destination)} <span className="muted small">({v.weight}%)</span>
                <span className="muted small conv-url" title={v.url}>
                  {v.url}
                </span>
              </td>
              <td className="num">{formatNumber(v.clicks)}</td>
              <td className="num">{formatNumber(v.leads)}</td>
              <td className="num">{formatNumber(v.sales)}</td>
              <td>
                <RevenueText revenue={v.revenue} />
              </td>
              <td className="num" data-testid={`split-rate-${v.destination}`}>
                {rateText(v.rate, test)}
              </td>
              <td data-testid={`split-interval-${v.destination}`}>
                {v.interval ? `${rateText(v.interval.low, test)} – ${rateText(v.interval.high, test)}` : <span className="muted">not enough visits</span>}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}

/** Leads, sales and revenue as tiles beside the period's clicks (account analytics). */
export function ConversionTiles({ leads, sales, revenue }: { leads: number; sales: number; revenue: Revenue }) {
  return (
    <>
      <div className="card tile" data-testid="tile-leads">
        <p className="tile-label">Leads</p>
        <p className="tile-value" data-testid="range-leads">
          {formatNumber(leads)}
        </p>
        <p className="muted small">sign-ups your links led to</p>
      </div>
      <div className="card tile" data-testid="tile-sales">
        <p className="tile-label">Sales</p>
        <p className="tile-value" data-testid="range-sales">
          {formatNumber(sales)}
        </p>
        <p className="muted small">refunded ones included</p>
      </div>
      <div className="card tile tile-revenue" data-testid="tile-revenue">
        <p className="tile-label">Revenue</p>
        <p className="tile-value">
          <RevenueText revenue={revenue} testId="range-revenue" />
        </p>
        <p className="muted small">net of refunds, per currency</p>
      </div>
    </>
  );
}
