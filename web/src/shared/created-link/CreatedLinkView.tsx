// After creating a link: the short URL with copy, its QR code (QrCode.tsx: design, preview and downloads),
// the link's settings, and the ways on (edit, statistics, another link).
import type { Link } from "@contract/links";
import { A, CopyButton } from "../ui";
import { formatDateTime } from "../dates";
import { QrCode } from "./QrCode";

export { QrCode };

function Summary({ link }: { link: Link }) {
  const rows: [string, string, string][] = [
    ["Destination", link.url, "summary-url"],
    ["Domain", link.domain ?? `${new URL(link.short_url).host} (default)`, "summary-domain"],
    ["Expires", link.expires_at ? formatDateTime(link.expires_at) : "Never", "summary-expires"],
    ["Click limit", link.max_clicks == null ? "None" : `${link.max_clicks.toLocaleString()} ${link.max_clicks === 1 ? "click" : "clicks"}`, "summary-max-clicks"],
    ["Password", link.has_password ? "Yes" : "No", "summary-password"],
  ];
  if (link.ios_url) rows.push(["iOS destination", link.ios_url, "summary-ios"]);
  if (link.android_url) rows.push(["Android destination", link.android_url, "summary-android"]);
  return (
    <dl className="summary" data-testid="created-summary">
      {rows.map(([label, value, testId]) => (
        <div key={label} className="summary-row">
          <dt>{label}</dt>
          <dd className="truncate" title={value} data-testid={testId}>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The short address as the created-link cards show it (here and on the home page). */
export function ShortUrl({ link }: { link: Link }) {
  return (
    <>
      <p className="eyebrow">Your short link</p>
      <p className="short-url">
        <a href={link.short_url} target="_blank" rel="noopener noreferrer" data-testid="short-url">
          {link.short_url}
        </a>
      </p>
    </>
  );
}

export function CreatedLinkView({ link, onAnother }: { link: Link; onAnother: () => void }) {
  return (
    <div className="narrow">
      <h1>Link created</h1>
      <section className="card result-card" data-testid="created-link" aria-live="polite">
        <div className="result-main">
          <ShortUrl link={link} />
          <div className="row gap">
            <CopyButton text={link.short_url} className="btn btn-primary" />
          </div>
          <Summary link={link} />
        </div>
        <QrCode link={link} />
      </section>
      <div className="row gap">
        <A to={`/app/links/${encodeURIComponent(link.id)}/edit`} className="btn btn-secondary" testId="created-edit">
          Edit
        </A>
        <A to={`/app/links/${encodeURIComponent(link.id)}/stats`} className="btn btn-secondary" testId="created-stats">
          Statistics
        </A>
        <button type="button" className="btn btn-primary" onClick={onAnother} data-testid="create-another">
          Create another
        </button>
        <A to="/app" className="btn btn-secondary">
          Back to your links
        </A>
      </div>
    </div>
  );
}
