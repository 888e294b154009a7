// Link health (docs/health.md): the shapes of `GET /api/links/{id}/health`, and the worst state a link object shows.
import { type Static, Type } from "typebox";
import { Nullable, StringEnum } from "./common.js";
import { LINK_HEALTH, LINK_HEALTH_FILTERS } from "./tables.js";

/** A destination's state: unknown until its first check, ok, failing (fewer than three failures in a row) or broken. */
export const HEALTH_STATES = ["unknown", "ok", "failing", "broken"] as const;
/** What a check found (docs/health.md, Classification). */
export const HEALTH_RESULTS = [
  "ok",
  "not_found",
  "server_error",
  "timeout",
  "dns_error",
  "tls_error",
  "tls_expired",
  "loop",
  "too_many_redirects",
  "connection_error",
  "rate_limited",
  "denied",
  "address_refused",
] as const;
export { LINK_HEALTH, LINK_HEALTH_FILTERS };
/** A link's `health`: broken when a destination is, else failing when one is, else ok when one was checked. */
export type LinkHealthSummary = (typeof LINK_HEALTH)[number];
export type LinkHealthFilter = (typeof LINK_HEALTH_FILTERS)[number];

const Result = StringEnum(HEALTH_RESULTS, "What the check found");

export const HealthCheckSchema = Type.Object({
  at: Type.String(),
  result: Result,
  status_code: Nullable(Type.Integer({ description: "The last answer's HTTP status; null when none came" })),
  error: Nullable(Type.String()),
  final_url: Nullable(Type.String({ description: "Where the redirects ended" })),
  response_ms: Nullable(Type.Integer()),
});
export type HealthCheck = Static<typeof HealthCheckSchema>;

export const DestinationHealthSchema = Type.Object({
  destination: Type.String({ description: "default, ios, android, rule:N, variant:N or fallback" }),
  url: Type.String(),
  state: StringEnum(HEALTH_STATES, "unknown, ok, failing or broken"),
  consecutive_failures: Type.Integer(),
  last_result: Nullable(Result),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  final_url: Nullable(Type.String()),
  redirect_loop: Type.Boolean(),
  tls_valid_to: Nullable(Type.String({ description: "The https certificate's end, as last seen" })),
  response_ms: Nullable(Type.Integer()),
  last_checked_at: Nullable(Type.String()),
  next_check_at: Type.String(),
  broken_since: Nullable(Type.String()),
  history: Type.Array(HealthCheckSchema, { description: "The last results, newest first (at most 10)" }),
});
export type DestinationHealth = Static<typeof DestinationHealthSchema>;

export const LinkHealthReply = Type.Object({
  status: Type.Literal("success"),
  checks_enabled: Type.Boolean({ description: "LINK_CHECKS: false when the instance checks no destination" }),
  destinations: Type.Array(DestinationHealthSchema),
});
export type LinkHealthReply = Static<typeof LinkHealthReply>;

const Count = Type.Integer({ minimum: 0 });
/** The operator's overview of link checks across the instance (GET /api/admin/overview, `link_checks`). */
export const LinkCheckFiguresSchema = Type.Object(
  {
    checks_enabled: Type.Boolean({ description: "LINK_CHECKS: false when this instance checks no destination" }),
    due: Count,
    links_broken: Count,
    destinations_broken: Count,
    destinations_failing: Count,
  },
  {
    description:
      "Link health across the instance (docs/health.md): destinations due for a check now, links with a broken destination, destinations broken (three failures in a row) and failing (one or two)",
  },
);
export type LinkCheckFigures = Static<typeof LinkCheckFiguresSchema>;
