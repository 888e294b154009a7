// A link's app figures on its statistics page (docs/deep-links.md, Store visits, installs and opens): the clicks
// the redirect sent to a store listing, the installs matched to the link (by click id or by device) and the opens
// through its address, for the range. Shown only when the statistics carry `apps` (a link with an app, or figures).
import type { Stats } from "@contract/stats";
import { formatNumber } from "../shared/numbers";
import "./apps-panel.css";

type AppFigures = NonNullable<Stats["apps"]>;

export function AppsPanel({ apps }: { apps: AppFigures }) {
  const figures = [
    { key: "store-visits", label: "Store visits", value: apps.store_visits, note: "sent to the App Store or Play Store" },
    { key: "installs", label: "Installs", value: apps.installs, note: "first launches matched to this link" },
    { key: "opens", label: "Opens", value: apps.opens, note: "the app opened through this link" },
  ];
  const { deterministic, probabilistic } = apps.installs_by_match;
  return (
    <section className="card apps-panel" aria-labelledby="apps-heading" data-testid="apps-panel">
      <h2 id="apps-heading">Store visits, installs, opens</h2>
      <p className="muted small">What phones did with this link's app in this period.</p>
      <dl className="apps-figures">
        {figures.map((f) => (
          <div key={f.key} className="apps-figure" data-testid={`apps-${f.key}`} data-value={f.value}>
            <dt className="tile-label">{f.label}</dt>
            <dd className="tile-value">{formatNumber(f.value)}</dd>
            <dd className="muted small">{f.note}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small apps-matches" data-testid="apps-matches">
        Installs by match: {formatNumber(deterministic)} by click id (Android's install referrer), {formatNumber(probabilistic)} by device (a first launch
        matched to a recent store visit).
      </p>
    </section>
  );
}
