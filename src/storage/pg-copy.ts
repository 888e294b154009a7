// PostgreSQL's COPY … FROM STDIN inside a Kysely transaction: the click writer's raw clicks (clicks/pg-writer.ts),
// whose rows COPY stores for about half the server's CPU of an INSERT … SELECT FROM unnest() (bench:clicks --pg).
// Kysely has no COPY, so the transaction runs on one connection of the pool openPostgresDb made, lent to a Kysely of
// its own for the other statements, and the COPY is sent on the same connection (pg-copy-streams).
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Database } from "./schema.js";
import { markConnectionFailure } from "./unavailable.js";

/** db.ts's Db (which imports this module). */
type Db = Kysely<Database>;

/** The pools behind PostgreSQL Kysely instances (db.ts registers each), by instance. */
const pools = new WeakMap<Db, { connect(): Promise<pg.PoolClient> }>();

export function registerPool(db: Db, pool: { connect(): Promise<pg.PoolClient> }): void {
  pools.set(db, pool);
}

/** A value of a COPY row: null is NULL. */
export type CopyValue = string | number | null;

/** COPY `table` (`columns`) FROM STDIN of rows in the transaction; the names are the code's own, never a user's. */
export type CopyIn = (table: string, columns: readonly string[], rows: readonly (readonly CopyValue[])[]) => Promise<void>;

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/**
 * Rows in COPY's text format: tab between values, a newline after each row; NULL as \N, a backslash, tab, newline
 * and carriage return escaped. Each row's cells are joined in one native call (numbers written by it), from one
 * array reused for every row: no string made per cell but for NULL and the few that need escaping.
 */
export function copyText(rows: readonly (readonly CopyValue[])[]): string {
  const lines = new Array<string>(rows.length);
  const cells: CopyValue[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    cells.length = row.length;
    for (let k = 0; k < row.length; k++) {
      const v = row[k] as CopyValue;
      cells[k] = v === null ? "\\N" : typeof v === "string" && SPECIAL.test(v) ? v.replace(SPECIALS, (c) => ESCAPES[c] as string) : v;
    }
    lines[i] = cells.join("\t");
  }
  return rows.length === 0 ? "" : lines.join("\n") + "\n";
}

/**
 * Runs `fn` in a transaction on one connection of `db`'s pool (a Kysely of openPostgresDb), with `copy` sending
 * COPY … FROM STDIN on that connection. A COPY that fails fails the transaction, rolled back as any statement's.
 */
export async function transactionWithCopy<T>(db: Db, fn: (trx: Db, copy: CopyIn) => Promise<T>): Promise<T> {
  const pool = pools.get(db);
  if (pool === undefined) throw new Error("transactionWithCopy: not a PostgreSQL database of openPostgresDb");
  let client: pg.PoolClient | undefined;
  // Kysely takes the connection at the transaction's start and gives it back to the pool at its end.
  const one = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: { connect: async () => (client = await pool.connect()), end: async () => undefined } }),
  });
  const copy: CopyIn = async (table, columns, rows) => {
    if (rows.length === 0) return;
    try {
      await pipeline(Readable.from([copyText(rows)]), (client as pg.PoolClient).query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`)));
    } catch (err) {
      throw markConnectionFailure(err, false);
    }
  };
  return one.transaction().execute((trx) => fn(trx, copy));
}
