// A link's clicks per day over the last 7 days as a small line with its area; a flat line at the bottom for none.
const W = 84;
import { formatNumber } from "../shared/numbers";
const H = 26;
const PAD = 2;

export function Sparkline({ values }: { values: number[] | undefined }) {
  if (!values) return <span className="sparkline sparkline-empty" aria-hidden="true" data-testid="link-sparkline" />;
  const total = values.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...values);
  const step = (W - 2 * PAD) / Math.max(1, values.length - 1);
  const points = values.map((v, i) => [PAD + i * step, H - PAD - (v / max) * (H - 2 * PAD)] as const);
  const line = points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  const area = `${PAD},${H - PAD} ${line} ${W - PAD},${H - PAD}`;
  const label = `${formatNumber(total)} ${total === 1 ? "click" : "clicks"} in the last 7 days`;
  return (
    <svg
      className={total === 0 ? "sparkline sparkline-flat" : "sparkline"}
      width={W}
      height={H}
      viewBox={`0 0 ${W} ${H}`}
      // A phone's row draws it narrower: the line stretches to the box.
      preserveAspectRatio="none"
      role="img"
      aria-label={`${label}: ${values.join(", ")} (oldest first)`}
      data-testid="link-sparkline"
      data-values={values.join(",")}
    >
      <title>{`${label}, day by day: ${values.join(", ")}`}</title>
      <polygon className="sparkline-area" points={area} />
      <polyline className="sparkline-line" points={line} />
      {points.length > 0 ? <circle className="sparkline-dot" cx={points[points.length - 1]![0]} cy={points[points.length - 1]![1]} r={2} /> : null}
    </svg>
  );
}
