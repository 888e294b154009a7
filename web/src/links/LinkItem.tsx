// One link of the owner's (or a team's shared) list as a dense row: its selection box, title (or alias) with a badge
// only for what is not the usual (expired, limited, scheduled, password, archived, rules, a broken destination...), the short link (copied
// on click) and the destination, tags, clicks with the 7-day sparkline, and one menu of its actions. On a phone the
// row stacks: the short link and the clicks on one line, the destination below.
import { memo, useEffect, useRef, useState, type Ref } from "react";
import type { Link } from "@contract/links";
import { LinkStateBadge, clicksWord, linkState } from "../shared/link-state";
import { RowMenu, SelectBox } from "../shared/menu";
import { behaviourBadges } from "../shared/created-link/link-summary";
import { useNavigate } from "react-router";
import { TagList } from "../shared/tag-chip";
import { A, ModerationNotice, copyText, formatDate } from "../shared/ui";
import { Sparkline } from "./Sparkline";
import { formatNumber } from "../shared/numbers";
import { HealthBadge } from "../shared/link-health";

export interface LinkItemProps {
  link: Link;
  /** The user's role allows editing / deleting this list's links (shared/team-role.ts). */
  canEdit: boolean;
  canDelete: boolean;
  selfId: string | undefined;
  selected: boolean;
  /** The callbacks take the row's link: the list passes the same functions to every row (a row redraws only when its own props change). */
  onSelect: (id: string, on: boolean) => void;
  /** Clicks per day of the last 7 days; undefined while loading. */
  sparkline: number[] | undefined;
  onQr: (link: Link) => void;
  onDelete: (link: Link) => void;
  /** The row the keyboard is on (arrow keys, j and k): drawn with a focus ring. */
  current?: boolean;
  rowRef?: Ref<HTMLLIElement>;
}

export const LinkItem = memo(function LinkItem({
  link: l,
  canEdit,
  canDelete,
  selfId,
  selected,
  onSelect,
  sparkline,
  onQr,
  onDelete,
  current = false,
  rowRef,
}: LinkItemProps) {
  const id = encodeURIComponent(l.id);
  const classes = [
    "link-item",
    selected ? "link-item-selected" : "",
    current ? "link-item-current" : "",
    l.archived ? "link-item-archived" : "",
    l.disabled ? "link-item-disabled" : l.destination_blocked ? "link-item-blocked" : "",
  ];
  const short = l.short_url.replace(/^https?:\/\//, "");
  return (
    <li
      ref={rowRef}
      tabIndex={-1}
      className={classes.filter(Boolean).join(" ")}
      data-testid="link-row"
      data-link-id={l.id}
      data-current={current || undefined}
      aria-current={current || undefined}
    >
      <div className="link-select">
        <SelectBox checked={selected} onChange={(on) => onSelect(l.id, on)} label={`Select ${l.title ?? short}`} testId="link-select" />
      </div>
      <div className="link-title-row">
        <A to={`/app/links/${id}`} className="link-title" testId="link-title">
          {l.title ?? l.alias}
        </A>
        <LinkBadges link={l} />
        {l.updated_by && l.updated_by_email ? (
          <span className="link-edited" data-testid="link-updated-by">
            Last edited by {l.updated_by === selfId ? "you" : l.updated_by_email}
          </span>
        ) : null}
      </div>
      <p className="link-urls">
        <ShortLink link={l} short={short} />
        <span className="link-arrow" aria-hidden="true">
          →
        </span>
        <span className="link-dest" title={l.url} data-testid="link-destination">
          {l.url}
        </span>
      </p>
      <div className="link-tags" title={l.tags.map((t) => t.name).join(", ") || undefined}>
        <TagList tags={l.tags} />
      </div>
      <LinkActivity link={l} sparkline={sparkline} />
      <LinkActions link={l} short={short} canEdit={canEdit} canDelete={canDelete} onQr={onQr} onDelete={onDelete} />
      {l.disabled || l.destination_blocked ? (
        <div className="link-moderation-row">
          <ModerationNotice link={l} compact />
        </div>
      ) : null}
    </li>
  );
});

/**
 * The short link as a button that copies it, with "Copied" beside it for a moment (announced to screen readers).
 * A custom domain's host is marked, so the row says which domain the link is on.
 */
function ShortLink({ link, short }: { link: Link; short: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const slash = short.indexOf("/");
  const host = slash > 0 ? short.slice(0, slash) : short;
  return (
    <span className="link-short-wrap">
      <button
        type="button"
        className="link-short"
        title={`Copy ${link.short_url}`}
        aria-label={`Copy ${short}`}
        data-testid="link-short-url"
        onClick={async () => {
          const ok = await copyText(link.short_url);
          setState(ok ? "copied" : "failed");
          window.clearTimeout(timer.current);
          timer.current = window.setTimeout(() => setState("idle"), 1800);
        }}
      >
        {link.domain ? <span data-testid="link-domain">{host}</span> : host}
        {short.slice(host.length)}
      </button>
      <span className={`link-copied${state === "idle" ? "" : " link-copied-shown"}`} role="status" data-testid="link-copied">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : ""}
      </span>
    </span>
  );
}

/** Badges only for what is not the usual: a state other than active, limits, a password, scheduling, rules, archive, health. */
function LinkBadges({ link: l }: { link: Link }) {
  const state = linkState(l);
  const behaviour = behaviourBadges(l);
  return (
    <span className="link-badges" data-testid="link-badges">
      {l.archived ? (
        <span className="badge badge-muted" data-testid="link-archived">
          Archived
        </span>
      ) : null}
      {state === "active" ? null : <LinkStateBadge link={l} />}
      <HealthBadge health={l.health} />
      {state === "active" && l.expires_at ? (
        <span className="badge" data-testid="link-expires">
          Expires {formatDate(l.expires_at)}
        </span>
      ) : null}
      {state === "active" && l.max_clicks != null ? (
        <span className="badge" data-testid="link-click-limit">
          Limit of {clicksWord(l.max_clicks)}
        </span>
      ) : null}
      {l.has_password ? (
        <span className="badge" data-testid="link-password">
          Password
        </span>
      ) : null}
      {behaviour.map((b) => (
        <span key={b.key} className="badge" title={b.title} data-testid={`link-behaviour-${b.key}`}>
          {b.label}
        </span>
      ))}
    </span>
  );
}

/** One menu of the row's actions, as Dub and Bitly have (keyboard: Enter opens, arrows move, Escape closes). */
function LinkActions({
  link,
  short,
  canEdit,
  canDelete,
  onQr,
  onDelete,
}: {
  link: Link;
  short: string;
  canEdit: boolean;
  canDelete: boolean;
  onQr: (link: Link) => void;
  onDelete: (link: Link) => void;
}) {
  const navigate = useNavigate();
  const id = encodeURIComponent(link.id);
  return (
    <div className="link-actions">
      <RowMenu
        label={`Actions for ${short}`}
        testId="link-menu"
        items={[
          { label: "Open link page", testId: "link-open", onSelect: () => navigate(`/app/links/${id}`) },
          { label: "Copy short link", testId: "link-copy", onSelect: () => void copyText(link.short_url) },
          { label: "Visit short link", testId: "link-visit", onSelect: () => window.open(link.short_url, "_blank", "noopener,noreferrer") },
          canEdit && { label: "Edit", testId: "link-edit", onSelect: () => navigate(`/app/links/${id}/edit`) },
          { label: "Statistics", testId: "link-stats", onSelect: () => navigate(`/app/links/${id}/stats`) },
          { label: "QR code", testId: "link-qr", onSelect: () => onQr(link) },
          { label: "Duplicate", testId: "link-duplicate", onSelect: () => navigate(`/app/links/new?from=${id}`) },
          canDelete && { label: "Delete", testId: "link-delete", danger: true, onSelect: () => onDelete(link) },
        ]}
      />
    </div>
  );
}

/** Clicks (with those imported from another shortener) and the last 7 days' sparkline. */
function LinkActivity({ link: l, sparkline }: { link: Link; sparkline: number[] | undefined }) {
  return (
    <div className="link-activity" title={`Created ${formatDate(l.created_at)}`}>
      <Sparkline values={sparkline} />
      <span data-testid="link-clicks" className="clicks">
        <strong>{formatNumber(l.click_count)}</strong> {l.click_count === 1 ? "click" : "clicks"}
        {l.imported_clicks > 0 ? (
          <span
            className="link-imported"
            data-testid="link-imported-clicks"
            title="Counted by the shortener this link was imported from, before it came to snip"
          >
            + {formatNumber(l.imported_clicks)} imported
          </span>
        ) : null}
      </span>
    </div>
  );
}
