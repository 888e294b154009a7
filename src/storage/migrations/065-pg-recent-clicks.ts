// PostgreSQL: each link's clicks before the months a short period touches, so that account analytics' top links over
// 7 or 30 days rule links out by their recent clicks as well as their all-time ones. link_click_order.base_count holds a
// link's clicks in the months before the last compacted one (click_rollup_state.months_through); the monthly
// compaction adds each month as it moves on (clicks/pg-months.ts). click_count - base_count is then at least a link's
// clicks in any period from the last compacted month on: of the links with enough all-time clicks to reach a 30 days'
// top, bench:big's account sums a few dozen instead of a thousand. No index holds it (every click would write to it:
// account-analytics.ts). A late click of a month already in base_count (an import's past visits) leaves it lower than
// that sum, which only loosens the bound. Filled here from the monthly rows: about 40 s for a million links with three
// years of clicks (bench:big, a two-core machine), less than a second for most installs.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE link_click_order ADD COLUMN base_count bigint NOT NULL DEFAULT 0`.execute(db);
  const state = await sql<{ through: string | null }>`SELECT months_through AS through FROM click_rollup_state WHERE id = 1`.execute(db);
  await fillBaseCounts(db, state.rows[0]?.through ?? "");
}

/** Every link's base_count from the monthly rows of the months before `through` (the last compacted month; "": none). */
export async function fillBaseCounts<DB>(db: Kysely<DB>, through: string): Promise<void> {
  if (through === "") return;
  await sql`UPDATE link_click_order o SET base_count = s.clicks
    FROM (SELECT link_id, sum(clicks) AS clicks FROM click_breakdown_month WHERE dimension = 'device' AND month < ${through} GROUP BY link_id) AS s
    WHERE o.link_id = s.link_id`.execute(db);
}

export function pgRecentClicks(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === "postgres") await postgresUp(db);
    },
  };
}
