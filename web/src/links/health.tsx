// Link health in the dashboard's words (docs/health.md): a link's badge (Broken, or a quiet Failing), each
// destination's state, and what a check found.
import type { Link } from "@contract/links";
import type { DestinationHealth, HealthCheck } from "@contract/health";

type DestinationState = DestinationHealth["state"];

export const STATE_WORDS: Record<DestinationState, string> = {
  unknown: "Not checked yet",
  ok: "OK",
  failing: "Failing",
  broken: "Broken",
};

export const STATE_KIND: Record<DestinationState, string> = {
  unknown: "badge-muted",
  ok: "badge-ok",
  failing: "badge-warning",
  broken: "badge-fail",
};

/** What one check found, as a person says it. */
export const RESULT_WORDS: Record<HealthCheck["result"], string> = {
  ok: "Answered",
  not_found: "Not found",
  server_error: "Server error",
  timeout: "No answer in time",
  dns_error: "Host not found",
  tls_error: "Certificate problem",
  tls_expired: "Certificate expired",
  loop: "Redirect loop",
  too_many_redirects: "Too many redirects",
  connection_error: "Connection failed",
  rate_limited: "Asked to wait",
  denied: "Refused the check",
  address_refused: "Private address, not checked",
};

const TITLES: Record<NonNullable<Link["health"]>, string> = {
  ok: "Its destinations answered their last checks",
  failing: "A destination did not answer its last check; it is checked again within the hour",
  broken: "A destination failed three checks in a row",
};

/** The list's and the link page's badge: "Broken" stands out, "Failing" stays quiet, an answering link shows none. */
export function HealthBadge({ health }: { health: Link["health"] }) {
  if (health !== "broken" && health !== "failing") return null;
  return (
    <span className={`badge ${health === "broken" ? "badge-fail" : "badge-muted"}`} title={TITLES[health]} data-testid="link-health" data-health={health}>
      {STATE_WORDS[health]}
    </span>
  );
}
