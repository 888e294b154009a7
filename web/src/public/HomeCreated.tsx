// The home page's result: the created short link, a copy button and its QR code (loaded with the result only).
import type { Link } from "@contract/links";
import { CopyButton, formatDateTime } from "../shared/ui";
import { QrCode, ShortUrl } from "../shared/created-link/CreatedLinkView";

export default function CreatedLink({ link, anonymous }: { link: Link; anonymous: boolean }) {
  return (
    <section className="card result-card" data-testid="created-link" aria-live="polite">
      <div className="result-main">
        <ShortUrl link={link} />
        <p className="muted truncate" title={link.url}>
          → {link.url}
        </p>
        <div className="row gap">
          <CopyButton text={link.short_url} className="btn btn-primary" />
        </div>
        {anonymous && link.expires_at ? <p className="muted small">Expires {formatDateTime(link.expires_at)}.</p> : null}
      </div>
      <QrCode link={link} />
    </section>
  );
}
