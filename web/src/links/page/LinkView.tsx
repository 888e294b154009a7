// The link's page once it is loaded: its name, short link and state; its numbers; its actions; then its details
// column (settings, its destinations' health, rules, device destinations, split) beside its QR code. The QR design
// panel opens in a dialog, so designing a code never narrows the details column.
import { useTeamRole } from "../../shared/team-role";
import { useState } from "react";
import type { Link } from "@contract/links";
import { useSession } from "../../shared/session";
import { LinkSummary } from "../../shared/created-link/link-summary";
import "../../shared/created-link/link-summary.css";
import { QrCode } from "../../shared/created-link/QrCode";
import { A, ModerationNotice } from "../../shared/ui";
import { QrDialog } from "../QrDialog";
import { Breakable } from "./Breakable";
import { LinkActions } from "./LinkActions";
import { LinkNumbers } from "./LinkNumbers";
import { LinkStatus } from "./LinkStatus";
import { LinkTables } from "./LinkTables";
import { LinkHealth } from "./LinkHealth";

function Head({ link, created }: { link: Link; created: boolean }) {
  return (
    <header className="link-page-head">
      <h1 data-testid="link-page-heading">{created ? "Link created" : (link.title ?? link.alias)}</h1>
      <p className="link-page-short">
        <a href={link.short_url} target="_blank" rel="noopener noreferrer" data-testid="short-url">
          <Breakable text={link.short_url} />
        </a>
      </p>
      <LinkStatus link={link} />
    </header>
  );
}

export function LinkView({ link, created, onChange }: { link: Link; created: boolean; onChange: (link: Link) => void }) {
  const { user } = useSession();
  const [qr, setQr] = useState(false);
  const mine = !!user && link.owner_id === user.id;
  const access = useTeamRole(link.owner_id);
  return (
    <div className="link-page">
      <p className="breadcrumb">
        {!mine && link.owner_id ? <A to={`/app/shared/${encodeURIComponent(link.owner_id)}`}>← Shared links</A> : <A to="/app">← Your links</A>}
      </p>
      <Head link={link} created={created} />
      <ModerationNotice link={link} />
      <LinkNumbers link={link} />
      <LinkActions link={link} access={access} onChange={onChange} onQr={() => setQr(true)} created={created} />
      <div className="link-page-body">
        <div className="link-page-details" data-testid="link-details">
          <section className="card" data-testid="created-link" aria-labelledby="link-details-heading">
            <h2 id="link-details-heading">Details</h2>
            <LinkSummary link={link} tables />
            {link.note ? (
              <p className="muted link-page-note" data-testid="link-page-note">
                {link.note}
              </p>
            ) : null}
          </section>
          <LinkHealth link={link} />
          <LinkTables link={link} />
        </div>
        <aside className="card link-page-qr" aria-label="QR code" data-testid="link-page-qr-card">
          <QrCode link={link} design={false} />
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setQr(true)} data-testid="link-page-qr-design">
            Design the QR code
          </button>
        </aside>
      </div>
      <QrDialog link={qr ? link : null} onClose={() => setQr(false)} designOpen />
    </div>
  );
}
