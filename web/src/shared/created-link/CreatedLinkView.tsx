// After creating a link: the short URL with copy, its QR code (QrCode.tsx: design, preview and downloads),
// everything the link does (link-summary.tsx), and the ways on (edit, statistics, duplicate, another link). The
// link's own page (/app/links/{id}) shows it too, so a reload keeps it.
import type { Link } from "@contract/links";
import { A, CopyButton } from "../ui";
import { LinkSummary } from "./link-summary";
import "./link-summary.css";
import { QrCode } from "./QrCode";

export { QrCode };

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

/** The link's card: what it does, its QR code and the ways on; `created` right after its creation. */
export function CreatedLinkView({ link, onAnother, created = true }: { link: Link; onAnother: () => void; created?: boolean }) {
  return (
    <div className="narrow">
      <p className="breadcrumb">
        <A to="/app">← Your links</A>
      </p>
      <h1 data-testid="link-page-heading">{created ? "Link created" : (link.title ?? link.alias)}</h1>
      <section className="card result-card" data-testid="created-link" aria-live="polite">
        <div className="result-main">
          <ShortUrl link={link} />
          <div className="row gap">
            <CopyButton text={link.short_url} className="btn btn-primary" />
          </div>
          <LinkSummary link={link} />
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
        <A to={`/app/links/new?from=${encodeURIComponent(link.id)}`} className="btn btn-secondary" testId="created-duplicate">
          Duplicate
        </A>
        <button type="button" className="btn btn-primary" onClick={onAnother} data-testid="create-another">
          Create another
        </button>
      </div>
    </div>
  );
}
