// The statistics page's pieces: a breakdown's bars, the teaser for plans without advanced statistics, and formats.
import { UpgradeHint } from "../../ui";

export function formatShare(v: number): string {
  const pct = v <= 1 ? v * 100 : v;
  return `${pct.toFixed(pct < 10 && pct > 0 ? 1 : 0)}%`;
}

let regionNames: Intl.DisplayNames | null = null;
export function countryName(code: string): string {
  if (!code || code.length !== 2) return code ? code.charAt(0).toUpperCase() + code.slice(1) : "Unknown";
  try {
    regionNames ??= new Intl.DisplayNames(undefined, { type: "region" });
    return `${regionNames.of(code.toUpperCase()) ?? code} (${code.toUpperCase()})`;
  } catch {
    return code;
  }
}

export function ProTeaser({ message }: { message?: string }) {
  return (
    <section className="card upgrade-card" data-testid="stats-pro-teaser">
      <h2>More with Pro</h2>
      {message ? <p className="muted">{message}</p> : null}
      <p>Your plan shows the total number of clicks. Pro and above add:</p>
      <ul className="checklist">
        <li>a daily chart of clicks</li>
        <li>countries, devices and browsers of your visitors</li>
        <li>CSV export of the statistics</li>
        <li>expiration dates and click limits on links</li>
      </ul>
      <UpgradeHint plan="Pro" />
    </section>
  );
}

export function Breakdown({ title, items, testId }: { title: string; items: { label: string; clicks: number }[] | undefined; testId: string }) {
  const list = (items ?? []).filter((i) => i.clicks > 0).sort((a, b) => b.clicks - a.clicks);
  const total = list.reduce((s, i) => s + i.clicks, 0);
  const max = list[0]?.clicks ?? 0;
  return (
    <section className="card breakdown" data-testid={testId}>
      <h2>{title}</h2>
      {list.length === 0 ? (
        <p className="muted small">No data for this period.</p>
      ) : (
        <ul className="hbars">
          {list.slice(0, 10).map((i) => (
            <li key={i.label} className="hbar">
              <div className="hbar-text">
                <span className="hbar-label truncate" title={i.label || "Unknown"}>
                  {i.label || "Unknown"}
                </span>
                <span className="hbar-value">
                  {i.clicks.toLocaleString()} <span className="muted">· {total ? Math.round((i.clicks / total) * 100) : 0}%</span>
                </span>
              </div>
              <div className="hbar-track" aria-hidden="true">
                <div className="hbar-fill" style={{ width: `${max ? Math.max(2, (i.clicks / max) * 100) : 0}%` }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
