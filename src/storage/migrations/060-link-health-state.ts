// Link health by state (docs/health.md): the link list's `health=broken` and `health=failing` filters and the
// operator's broken counts find the few links in a state through this index, not by reading every destination.
import type { Kysely } from "kysely";

export function linkHealthState() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex("link_health_state").on("link_health").columns(["state", "link_id"]).execute();
    },
  };
}
