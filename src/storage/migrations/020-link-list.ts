// Indexes of the links list (docs/api.md, Links list). Sorted by last click, it pages by one key on both
// engines: the last click's time, 0 for a link never clicked (the oldest of all); SQLite puts NULL first
// and PostgreSQL last in an index, so 018's index on the bare column is replaced by one on that
// expression, which the list names exactly as written here. Its `total` counts an account's links not
// archived through a small partial index, and the archived ones through another with their ids (the
// total of a list filtered by tags is the tags' links less their archived ones): no table row is read.
import { type Kysely, sql } from "kysely";

export function linkList() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex("links_owner_last_click").execute();
      await sql`CREATE INDEX links_owner_last_click_key ON links (owner_id, (coalesce(last_click_at, 0)), id)`.execute(db);
      await sql`CREATE INDEX links_owner_live ON links (owner_id) WHERE archived_at IS NULL`.execute(db);
      await sql`CREATE INDEX links_owner_archived ON links (owner_id, id) WHERE archived_at IS NOT NULL`.execute(db);
    },
  };
}
