// One link of the owner's (or a team's shared) list: its selection box, title (or alias), short URL and destination,
// tags, state and archived badges, clicks with the 7-day sparkline, and its actions.
import type { Link } from "@contract/links";
import { LinkStateBadge } from "../shared/link-state";
import { RowMenu, SelectBox } from "../shared/menu";
import { behaviourBadges } from "../shared/created-link/link-summary";
import "../shared/created-link/link-summary.css";
import { useNavigate } from "react-router";
import { TagList } from "../shared/tag-chip";
import { A, CopyButton, ModerationNotice, formatDate } from "../shared/ui";
import { Sparkline } from "./Sparkline";

export interface LinkItemProps {
  link: Link;
  shared: boolean;
  selfId: string | undefined;
  selected: boolean;
  onSelect: (on: boolean) => void;
  /** Clicks per day of the last 7 days; undefined while loading. */
  sparkline: number[] | undefined;
  onQr: () => void;
  onDelete: () => void;
}

export function LinkItem({ link: l, shared, selfId, selected, onSelect, sparkline, onQr, onDelete }: LinkItemProps) {
  const id = encodeURIComponent(l.id);
  const classes = [
    "link-item",
    "card",
    selected ? "link-item-selected" : "",
    l.archived ? "link-item-archived" : "",
    l.disabled ? "link-item-disabled" : l.destination_blocked ? "link-item-blocked" : "",
  ];
  const short = l.short_url.replace(/^https?:\/\//, "");
  const behaviour = behaviourBadges(l);
  return (
    <li className={classes.filter(Boolean).join(" ")} data-testid="link-row" data-link-id={l.id}>
      <div className="link-select">
        <SelectBox checked={selected} onChange={onSelect} label={`Select ${l.title ?? short}`} testId="link-select" />
      </div>
      <div className="link-info">
        <p className="link-title-row">
          <A to={`/app/links/${id}`} className="link-title" testId="link-title">
            {l.title ?? l.alias}
          </A>
          {l.archived ? (
            <span className="badge badge-muted" data-testid="link-archived">
              Archived
            </span>
          ) : null}
        </p>
        <p className="link-urls">
          <a className="link-short" href={l.short_url} target="_blank" rel="noopener noreferrer" data-testid="link-short-url">
            {short}
          </a>
          <span className="link-arrow" aria-hidden="true">
            →
          </span>
          <span className="link-dest truncate" title={l.url} data-testid="link-destination">
            {l.url}
          </span>
        </p>
        <TagList tags={l.tags} />
        {behaviour.length ? (
          <p className="link-behaviour" data-testid="link-behaviour">
            {behaviour.map((b) => (
              <span key={b.key} className="badge" title={b.title} data-testid={`link-behaviour-${b.key}`}>
                {b.label}
              </span>
            ))}
          </p>
        ) : null}
        <LinkMeta link={l} selfId={selfId} />
        <ModerationNotice link={l} compact />
      </div>
      <LinkActivity link={l} sparkline={sparkline} />
      <LinkActions link={l} short={short} shared={shared} onQr={onQr} onDelete={onDelete} />
    </li>
  );
}

/** The copy button and one menu of the row's actions, as Dub and Bitly have (keyboard: Enter opens, arrows move, Escape closes). */
function LinkActions({ link, short, shared, onQr, onDelete }: { link: Link; short: string; shared: boolean; onQr: () => void; onDelete: () => void }) {
  const navigate = useNavigate();
  const id = encodeURIComponent(link.id);
  return (
    <div className="link-actions">
      <CopyButton text={link.short_url} testId="link-copy" />
      <RowMenu
        label={`Actions for ${short}`}
        testId="link-menu"
        items={[
          { label: "Open link page", testId: "link-open", onSelect: () => navigate(`/app/links/${id}`) },
          { label: "Edit", testId: "link-edit", onSelect: () => navigate(`/app/links/${id}/edit`) },
          { label: "Statistics", testId: "link-stats", onSelect: () => navigate(`/app/links/${id}/stats`) },
          { label: "QR code", testId: "link-qr", onSelect: onQr },
          { label: "Duplicate", testId: "link-duplicate", onSelect: () => navigate(`/app/links/new?from=${id}`) },
          !shared && { label: "Delete", testId: "link-delete", danger: true, onSelect: onDelete },
        ]}
      />
    </div>
  );
}

/** The state badge, creation date, custom domain and who last edited the link. */
function LinkMeta({ link: l, selfId }: { link: Link; selfId: string | undefined }) {
  return (
    <p className="link-meta">
      <LinkStateBadge link={l} details />
      <span>Created {formatDate(l.created_at)}</span>
      {l.domain ? (
        <span className="badge link-domain" data-testid="link-domain" title="On your custom domain">
          {l.domain}
        </span>
      ) : null}
      {l.updated_by && l.updated_by_email ? (
        <span data-testid="link-updated-by">Last edited by {l.updated_by === selfId ? "you" : l.updated_by_email}</span>
      ) : null}
    </p>
  );
}

/** Clicks (with those imported from another shortener) and the last 7 days' sparkline. */
function LinkActivity({ link: l, sparkline }: { link: Link; sparkline: number[] | undefined }) {
  return (
    <div className="link-activity">
      <span data-testid="link-clicks" className="clicks">
        <strong>{l.click_count.toLocaleString()}</strong> {l.click_count === 1 ? "click" : "clicks"}
        {l.imported_clicks > 0 ? (
          <span
            className="link-imported"
            data-testid="link-imported-clicks"
            title="Counted by the shortener this link was imported from, before it came to snip"
          >
            + {l.imported_clicks.toLocaleString()} imported
          </span>
        ) : null}
      </span>
      <Sparkline values={sparkline} />
      <span className="link-activity-note">last 7 days</span>
    </div>
  );
}
