// Kysely's SQLite driver prepares every query it runs anew: SQLite parses and plans the text each
// time, which measured about half of a signed-in API read's database time. This hands Kysely the
// connection's statements from a cache keyed by their text instead (the least recently used one goes
// past MAX_STATEMENTS). Sharing a statement is safe on this connection: Kysely runs one query at a
// time on it (its connection mutex), a query runs to the end before the next one starts (all() and
// run() are synchronous; a streamed read holds the connection until it is done), and SQLite prepares a
// statement again by itself when the schema changed under it (a migration).
import type SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Distinct query texts kept prepared: every query the service builds fits, IN lists of many lengths included. */
export const MAX_STATEMENTS = 500;

export function cachingStatements(handle: SQLite.Database, max = MAX_STATEMENTS): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (stmt !== undefined) {
        // Most recently used last: Map keeps insertion order.
        cache.delete(sql);
      } else {
        stmt = handle.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, stmt);
      return stmt as unknown as SqliteStatement;
    },
    close(): void {
      cache.clear();
      handle.close();
    },
  };
}
