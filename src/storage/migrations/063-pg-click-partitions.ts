// PostgreSQL: raw clicks partitioned by UTC month of `at` (src/storage/click-partitions.ts), so that retention drops a
// month's partition instead of deleting its rows one by one (and vacuuming after them), and a month's reads and
// writes touch that month's table and indexes. clicks becomes a partitioned table of the same columns, keyed by
// (id, at) (a partitioned table's key holds its partition key; ids still come from the same sequence, so each is
// unique), with the same (link_num, at) index in every month, a partition for each month that holds clicks, this
// one and the next, and clicks_default for any time outside them. The rows are copied over in the migration's
// transaction: about 2 µs a click (docs/operations.md, upgrade notes). SQLite keeps one table.
import { type Kysely, sql } from "kysely";
import type { Db, Dialect } from "../db.js";
import { makeMonths, monthOf, nextMonth } from "../click-partitions.js";

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  const seq = await sql<{ seq: string }>`SELECT pg_get_serial_sequence('clicks', 'id') AS seq`.execute(db);
  await sql`ALTER TABLE clicks RENAME TO clicks_unpartitioned`.execute(db);
  await sql`ALTER TABLE clicks_unpartitioned RENAME CONSTRAINT clicks_pkey TO clicks_unpartitioned_pkey`.execute(db);
  await sql`ALTER INDEX clicks_link_at RENAME TO clicks_unpartitioned_link_at`.execute(db);
  await sql`CREATE TABLE clicks (LIKE clicks_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (at)`.execute(db);
  await sql`ALTER TABLE clicks ADD CONSTRAINT clicks_pkey PRIMARY KEY (id, at)`.execute(db);
  await sql`CREATE INDEX clicks_link_at ON clicks (link_num, at)`.execute(db);
  // The sequence goes with the new table's id (the old table's drop would take it along).
  await sql`ALTER SEQUENCE ${sql.raw(seq.rows[0]!.seq)} OWNED BY clicks.id`.execute(db);
  await sql`CREATE TABLE clicks_default PARTITION OF clicks DEFAULT`.execute(db);
  // The months that hold clicks, this one and the next: not every month from the oldest click (one at a nonsense
  // time, 1970, would make some 680 empty partitions). A time past year 9999 stays in clicks_default.
  const held = await sql<{ month_ms: string }>`SELECT DISTINCT
      (extract(epoch FROM date_trunc('month', to_timestamp(at / 1000.0) AT TIME ZONE 'UTC')) * 1000)::bigint AS month_ms
    FROM clicks_unpartitioned WHERE at >= 0 AND at < 253402300800000`.execute(db);
  const now = monthOf(Date.now());
  const months = new Set([...held.rows.map((r) => monthOf(Number(r.month_ms))), now, nextMonth(now)]);
  await makeMonths(db as unknown as Db, [...months].sort());
  await sql`INSERT INTO clicks SELECT * FROM clicks_unpartitioned`.execute(db);
  await sql`DROP TABLE clicks_unpartitioned`.execute(db);
}

export function pgClickPartitions(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === "postgres") await postgresUp(db);
    },
  };
}
