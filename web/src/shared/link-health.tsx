// A link's health where links are listed (docs/health.md): its badge ("Broken" stands out, "Failing" stays quiet)
// and the health filter's choices, for the owner's list and link page and for the operator's links.
import type { Link } from "@contract/links";
import type { LinkHealthFilter } from "@contract/health";
import { LINK_HEALTH_FILTERS } from "@contract/tables";

const TITLES: Record<NonNullable<Link["health"]>, string> = {
  ok: "Its destinations answered their last checks",
  failing: "A destination did not answer its last check; it is checked again within the hour",
  broken: "A destination failed three checks in a row",
};

const HEALTH_LABELS: Record<LinkHealthFilter, string> = {
  broken: "Broken",
  failing: "Failing",
  ok: "OK",
  unchecked: "Not checked",
};
/** The health filter's choices: a link's worst checked destination, or none checked yet. */
export const HEALTHS = LINK_HEALTH_FILTERS.map((health) => [health, HEALTH_LABELS[health]] as const);

/** A link's badge: "Broken" stands out, "Failing" stays quiet, an answering or unchecked link shows none. */
export function HealthBadge({ health }: { health: Link["health"] }) {
  if (health !== "broken" && health !== "failing") return null;
  return (
    <span className={`badge ${health === "broken" ? "badge-fail" : "badge-muted"}`} title={TITLES[health]} data-testid="link-health" data-health={health}>
      {HEALTH_LABELS[health]}
    </span>
  );
}
