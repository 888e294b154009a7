// One link of the owner's (or a team's shared) list: its selection box, title (or alias), short URL and destination,
// tags, state and archived badges, clicks with the 7-day sparkline, and its actions.
import type { Link } from "@contract/links";
import { LinkStateBadge } from "../shared/link-state";
import { SelectBox } from "../shared/menu";
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
  const classes = ["link-item", "card", selected ? "link-item-selected" : "", l.archived ? "link-item-archived" : "", l.disabled ? "link-item-disabled" : l.destination_blocked ? "link-item-blocked" : ""];
  const short = l.short_url.replace(/^https?:\/\//, "");
  return (
    <li className={classes.filter(Boolean).join(" ")} data-testid="link-row" data-link-id={l.id}>
      <div className="link-select">
        <SelectBox checked={selected} onChange={onSelect} label={`Select ${l.title ?? short}`} testId="link-select" />
      </div>
      <div className="link-info">
        <p className="link-title-row">
          <A to={`/app/links/${id}/stats`} className="link-title" testId="link-title">
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
        <p className="link-meta">
          <LinkStateBadge link={l} details />
          <span>Created {formatDate(l.created_at)}</span>
          {l.domain ? (
            <span className="badge link-domain" data-testid="link-domain" title="On your custom domain">
              {l.domain}
            </span>
          ) : null}
          {l.updated_by && l.updated_by_email ? <span data-testid="link-updated-by">Last edited by {l.updated_by === selfId ? "you" : l.updated_by_email}</span> : null}
        </p>
        <ModerationNotice link={l} compact />
      </div>
      <div className="link-activity">
        <span data-testid="link-clicks" className="clicks">
          <strong>{l.click_count.toLocaleString()}</strong> {l.click_count === 1 ? "click" : "clicks"}
          {l.imported_clicks > 0 ? (
            <span className="link-imported" data-testid="link-imported-clicks" title="Counted by the shortener this link was imported from, before it came to snip">
              + {l.imported_clicks.toLocaleString()} imported
            </span>
          ) : null}
        </span>
        <Sparkline values={sparkline} />
        <span className="link-activity-note">last 7 days</span>
      </div>
      <div className="link-actions">
        <CopyButton text={l.short_url} testId="link-copy" />
        <button type="button" className="btn btn-secondary btn-sm" data-testid="link-qr" onClick={onQr}>
          QR
        </button>
        <A to={`/app/links/${id}/edit`} className="btn btn-secondary btn-sm" testId="link-edit">
          Edit
        </A>
        <A to={`/app/links/${id}/stats`} className="btn btn-secondary btn-sm" testId="link-stats">
          Statistics
        </A>
        <A to={`/app/links/new?from=${id}`} className="btn btn-secondary btn-sm" testId="link-duplicate">
          Duplicate
        </A>
        {shared ? null : (
          <button type="button" className="btn btn-danger-ghost btn-sm" data-testid="link-delete" onClick={onDelete}>
            Delete
          </button>
        )}
      </div>
    </li>
  );
}
