// The statistics pages' small pieces: the teaser for plans without advanced statistics, and formats.
import { UpgradeHint } from "../ui";

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
        <li>a chart of clicks and visitors by hour, day or month, in your time zone</li>
        <li>QR code scans counted apart from clicks on the link</li>
        <li>countries, devices and browsers of your visitors</li>
        <li>CSV export of the statistics</li>
        <li>expiration dates and click limits on links</li>
      </ul>
      <UpgradeHint plan="Pro" />
    </section>
  );
}
