// Link health in the dashboard's words (docs/health.md): each destination's state, and what a check found (a
// link's badge and the list filter's choices: shared/link-health.tsx).
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
