// A link's clicks day by day over the statistics' 30 days, as a line with its area, as wide as its tile.
const W = 300;
import { formatNumber } from "../../shared/numbers";
const H = 56;
const PAD = 3;

export function MonthSparkline({ values, days }: { values: number[]; days: string }) {
  const total = values.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...values);
  const step = (W - 2 * PAD) / Math.max(1, values.length - 1);
  const points = values.map((v, i) => [PAD + i * step, H - PAD - (v / max) * (H - 2 * PAD)] as const);
  const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  const label = `${formatNumber(total)} ${total === 1 ? "click" : "clicks"} ${days}, day by day: ${values.join(", ")} (oldest first)`;
  return (
    <svg
      className={`month-sparkline${total === 0 ? " month-sparkline-flat" : ""}`}
      viewBox={`0 0 ${W} ${H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
      data-testid="link-page-sparkline"
      data-values={values.join(",")}
    >
      <title>{label}</title>
      <polygon className="month-sparkline-area" points={`${PAD},${H - PAD} ${line} ${W - PAD},${H - PAD}`} />
      <polyline className="month-sparkline-line" points={line} vectorEffect="non-scaling-stroke" />
    </svg>
  );
}
