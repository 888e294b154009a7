// What a visitor of the link meets now, in badges and one sentence each: expired, click limit reached, not open
// yet, password, archived, a broken destination (an operator's decision has its own notice, ModerationNotice).
import type { Link } from "@contract/links";
import { LinkStateBadge, clicksWord, linkState } from "../../shared/link-state";
import { formatDateTime } from "../../shared/ui";
import { HealthBadge } from "../../shared/link-health";

/** The sentences under the badges, each with its test id; none for a plain active link. */
export function statusLines(link: Link, now = Date.now()): [string, string][] {
  const lines: [string, string][] = [];
  const state = linkState(link, now);
  const fallback = link.expired_url ? `visitors are sent to ${link.expired_url}` : "visitors get a page saying so";
  if (state === "expired") lines.push(["expired", `Expired on ${formatDateTime(link.expires_at)}: ${fallback}.`]);
  if (state === "limit_reached") lines.push(["limited", `Reached its limit of ${clicksWord(link.max_clicks ?? 0)}: ${fallback}.`]);
  if (link.starts_at && Date.parse(link.starts_at) > now)
    lines.push(["scheduled", `Opens on ${formatDateTime(link.starts_at)}: until then visitors get a page saying when, and no click counts.`]);
  if (link.has_password) lines.push(["password", "Protected by a password: visitors type it before they are sent on."]);
  if (link.archived) lines.push(["archived", "Archived: it still redirects, and your list shows it only under the Archived filter."]);
  return lines;
}

export function LinkStatus({ link }: { link: Link }) {
  const lines = statusLines(link);
  const scheduled = !!link.starts_at && Date.parse(link.starts_at) > Date.now();
  return (
    <div className="link-status" data-testid="link-status">
      <p className="link-status-badges">
        <LinkStateBadge link={link} details />
        <HealthBadge health={link.health} />
        {scheduled ? (
          <span className="badge badge-warning" data-testid="link-scheduled">
            Opens {formatDateTime(link.starts_at)}
          </span>
        ) : null}
        {link.archived ? (
          <span className="badge badge-muted" data-testid="link-archived">
            Archived
          </span>
        ) : null}
      </p>
      {lines.length > 0 ? (
        <ul className="link-status-lines">
          {lines.map(([key, text]) => (
            <li key={key} data-testid={`link-status-${key}`}>
              {text}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
