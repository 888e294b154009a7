// The events a webhook takes (docs/webhooks.md, Events): a comma-separated list of event types, link_click for
// every webhook made before (what it received until now), so nothing changes for a receiver that never opts in.
import { type Kysely, sql } from "kysely";

export function webhookEvents() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("webhooks")
        .addColumn("events", "text", (c) => c.notNull().defaultTo(sql`'link_click'`))
        .execute();
    },
  };
}
