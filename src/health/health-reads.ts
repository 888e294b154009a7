// Link health's reads (docs/health.md): a link's destinations with their last results (GET /api/links/{id}/health and
// its external API twin), and the figures across the instance the operator's overview shows.
import type { Db } from "../storage/db.js";
import { iso } from "../shared/clock.js";
import type { DestinationHealth, HealthCheck, LinkCheckFigures } from "../contract/health.js";

/** default first, then devices, rules, variants, fallback. */
function destinationOrder(d: string): number {
  const i = ["default", "ios", "android", "rule", "variant", "fallback"].indexOf(d.split(":")[0] as string);
  return i * 100 + Number(d.split(":")[1] ?? 0);
}

const time = (ms: number | string | null) => iso(ms === null ? null : Number(ms));

/** A link's destinations in the link's order, each with its last results, newest first. */
export async function destinationsHealth(db: Db, linkId: string): Promise<DestinationHealth[]> {
  const rows = await db.selectFrom("link_health").selectAll().where("link_id", "=", linkId).execute();
  const ids = rows.map((r) => r.id);
  const results =
    ids.length === 0
      ? []
      : await db.selectFrom("link_health_results").selectAll().where("health_id", "in", ids).orderBy("at", "desc").orderBy("id", "desc").execute();
  return rows
    .sort((a, b) => destinationOrder(a.destination) - destinationOrder(b.destination) || a.destination.localeCompare(b.destination))
    .map((row) => ({
      destination: row.destination,
      url: row.url,
      state: row.state as DestinationHealth["state"],
      consecutive_failures: row.consecutive_failures,
      last_result: row.last_result as DestinationHealth["last_result"],
      status_code: row.last_status,
      error: row.last_error,
      final_url: row.final_url,
      redirect_loop: row.redirect_loop === 1,
      tls_valid_to: time(row.tls_valid_to),
      response_ms: row.response_ms,
      last_checked_at: time(row.last_checked_at),
      next_check_at: iso(Number(row.next_check_at)),
      broken_since: time(row.broken_since),
      history: results
        .filter((r) => r.health_id === row.id)
        .map((r) => ({
          at: iso(Number(r.at)),
          result: r.result as HealthCheck["result"],
          status_code: r.status_code,
          error: r.error,
          final_url: r.final_url,
          response_ms: r.response_ms,
        })),
    }));
}

/**
 * Destinations due for a check at `now`, links and destinations broken, destinations failing. With checks off
 * (`enabled` false) nothing: rows left from a time checks were on are not shown, as links' health is not.
 */
export async function checkFigures(db: Db, enabled: boolean, now: number): Promise<LinkCheckFigures> {
  if (!enabled) return { checks_enabled: false, due: 0, links_broken: 0, destinations_broken: 0, destinations_failing: 0 };
  const [due, states] = await Promise.all([
    db
      .selectFrom("link_health")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("next_check_at", "<=", now)
      .executeTakeFirstOrThrow(),
    // Through link_health_state (migration 060): broken and failing rows only.
    db
      .selectFrom("link_health")
      .select((eb) => ["state", eb.fn.countAll<number | string>().as("n"), eb.fn.count<number | string>("link_id").distinct().as("links")])
      .where("state", "in", ["failing", "broken"])
      .groupBy("state")
      .execute(),
  ]);
  const of = (state: string) => states.find((r) => r.state === state);
  return {
    checks_enabled: true,
    due: Number(due.n),
    links_broken: Number(of("broken")?.links ?? 0),
    destinations_broken: Number(of("broken")?.n ?? 0),
    destinations_failing: Number(of("failing")?.n ?? 0),
  };
}
