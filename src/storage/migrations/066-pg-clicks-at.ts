// PostgreSQL: raw clicks without the primary key (id, at) that migration 063 gave them, and with a BRIN index on `at`
// instead. Nothing reads a click by its id: the log and the live backlog read a link's clicks through clicks_link_at
// (link_num, at) and order by id among clicks of the same millisecond; ids still come from the sequence. The key cost
// every raw click a b-tree entry: bench:clicks --pg, hot, 3.18 µs of PostgreSQL a click with it, 2.83 without (and
// 31.6 of the ~175 bytes a click takes on disk). Retention used to walk the key from the oldest id; it deletes
// `at < limit` now, found through the BRIN index (a few pages of minimum and maximum per 128 table pages: clicks are
// written in time order), after the months wholly past the limit are dropped (storage/click-partitions.ts). A table
// without a key publishes no deletes by logical replication: docs/postgresql.md says how to give it one.
import { type Kysely, sql } from "kysely";
import type { Dialect } from "../db.js";

export function pgClicksAt(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== "postgres") return;
      await sql`ALTER TABLE clicks DROP CONSTRAINT clicks_pkey`.execute(db);
      // autosummarize: a range of pages is summarised as soon as the next one starts, not only by VACUUM.
      await sql`CREATE INDEX clicks_at ON clicks USING brin (at) WITH (autosummarize = on)`.execute(db);
    },
  };
}
