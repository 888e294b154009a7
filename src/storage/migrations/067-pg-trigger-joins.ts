// PostgreSQL: the statement triggers that join a transition table of links (the rows an UPDATE or a DELETE of links
// changed) to another table by its key now always join by that table's index. PL/pgSQL plans each of these statements
// once per connection, with the size of the first transition table it met: after a first statement of 1,000 links (a
// click writer's batch, a bulk delete) the plan was a hash join that read the whole of link_click_order, and the
// connection kept it for every later statement, one link or a thousand. Measured on 50,000 links (a batch's UPDATE of
// 1,000 links' click counts): the trigger took 26-30 ms, 13-17 ms joined by the index; deleting one link read all
// 50,000 rows of link_click_order (22 ms). Both grow with the number of links; joined by the index they grow with the
// rows changed. delete_clicks_of_deleted_links is held to the same rule: a plan made while clicks was small must not
// read every month's clicks when it has grown.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

/** The trigger functions (migrations 006 and 061) whose statement joins a transition table to an indexed table. */
const JOINING = ["link_click_order_update()", "link_click_order_delete()", "delete_clicks_of_deleted_links()"] as const;

export function pgTriggerJoins(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== "postgres") return;
      // With neither a hash nor a merge join allowed, the planner takes a nested loop over the transition table, each of
      // its rows found through the other table's index (link_click_order_pkey; clicks_link_at of each month).
      for (const fn of JOINING) await sql`ALTER FUNCTION ${sql.raw(fn)} SET enable_hashjoin = off SET enable_mergejoin = off`.execute(db);
    },
  };
}
