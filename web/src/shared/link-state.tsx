// One badge for a link's state wherever links are listed (the owner's list, a team's shared list, the operator's
// console), with one wording for each state.
import type { LinkState } from "@contract/admin";
import type { Link } from "@contract/links";
import { formatDate } from "./ui";
import { formatNumber } from "./numbers";

export type LinkStateFields = Pick<Link, "disabled" | "destination_blocked" | "expires_at" | "max_clicks" | "click_count">;

/** What a visitor of the link meets now: an operator's decision first, then the link's own expiry and click limit. */
export function linkState(l: LinkStateFields, now = Date.now()): LinkState {
  if (l.disabled) return "disabled";
  if (l.destination_blocked) return "blocked";
  if (l.expires_at && Date.parse(l.expires_at) <= now) return "expired";
  if (l.max_clicks != null && l.click_count >= l.max_clicks) return "limit_reached";
  return "active";
}

export const LINK_STATE_LABELS: Record<LinkState, string> = {
  active: "Active",
  expired: "Expired",
  limit_reached: "Click limit reached",
  disabled: "Disabled by the operator",
  blocked: "Destination blocked",
};

const KIND: Record<LinkState, string> = {
  active: "badge-ok",
  expired: "badge-muted",
  limit_reached: "badge-muted",
  disabled: "badge-fail",
  blocked: "badge-warning",
};

export function clicksWord(n: number): string {
  return `${formatNumber(n)} ${n === 1 ? "click" : "clicks"}`;
}

/** The words of the badge: "Limit of 1 click reached", "Expired Mar 3, 2026", "Disabled by the operator (451)". */
export function linkStateText(link: LinkStateFields, state: LinkState = linkState(link)): string {
  if (state === "limit_reached") return `Limit of ${clicksWord(link.max_clicks ?? 0)} reached`;
  if (state === "expired") return `Expired ${formatDate(link.expires_at)}`;
  if (state === "disabled") return `Disabled by the operator (${link.disabled?.status ?? 410})`;
  return LINK_STATE_LABELS[state];
}

/**
 * The link's state; with `details`, an active link also says what limits it (expiry date, click limit, password),
 * and a disabled one the operator's reason.
 */
export function LinkStateBadge({
  link,
  details = false,
  withReason = false,
}: {
  link: LinkStateFields & { has_password?: boolean };
  details?: boolean;
  withReason?: boolean;
}) {
  const state = linkState(link);
  return (
    <span className="link-state" data-state={state}>
      <span className={`badge ${KIND[state]}`} data-testid="link-state" data-state={state}>
        {linkStateText(link, state)}
      </span>
      {details && state === "active" && link.expires_at ? <span className="badge">Expires {formatDate(link.expires_at)}</span> : null}
      {details && state === "active" && link.max_clicks != null ? (
        <span className="badge" data-testid="link-click-limit">
          Limit of {clicksWord(link.max_clicks)}
        </span>
      ) : null}
      {details && link.has_password ? <span className="badge">Password</span> : null}
      {withReason && state === "disabled" && link.disabled ? (
        <span className="muted small state-reason" data-testid="link-state-reason">
          {link.disabled.reason}
        </span>
      ) : null}
    </span>
  );
}
