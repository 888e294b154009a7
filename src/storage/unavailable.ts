// Tells a database that cannot serve now (stopped, restarting, unreachable, its disk full) from a statement it refused.
import SQLite from "better-sqlite3";
import pg from "pg";

/** A failure the database's side of a message passed on (the click writer's thread): the database is unavailable. */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
}

/** Errors the PostgreSQL pool saw as a lost or refused connection (they carry no SQLSTATE of their own). */
const lost = new WeakSet<object>();

/**
 * SQLSTATE classes that say "not now" rather than "not this": connection exceptions (08), insufficient
 * resources (53: disk full, out of memory, too many connections), and the server shutting down,
 * crashing or starting (57P01-57P03).
 */
function pgNotNow(code: string | undefined): boolean {
  return code !== undefined && (code.startsWith("08") || code.startsWith("53") || code === "57P01" || code === "57P02" || code === "57P03");
}

/** SQLite: the disk is full, an I/O error, or the write lock not obtained within busy_timeout. */
const SQLITE_NOT_NOW = /^SQLITE_(FULL|IOERR|BUSY)/;

/** pg's own messages for a connection that is gone (its socket errors carry `syscall`). */
const CONNECTION_GONE = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/** Whether `err` means the database cannot serve now: the request may succeed if retried in a few seconds. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  if (err instanceof DatabaseUnavailableError || lost.has(err)) return true;
  if (err instanceof pg.DatabaseError) return pgNotNow(err.code);
  if (err instanceof SQLite.SqliteError) return SQLITE_NOT_NOW.test(err.code);
  return false;
}

/** Marks an error of the PostgreSQL pool: every failure to connect, and a query's failure when its connection is gone. */
export function markConnectionFailure(err: unknown, connecting: boolean): unknown {
  if (typeof err !== "object" || err === null || err instanceof pg.DatabaseError) return err;
  if (connecting || "syscall" in err || (err instanceof Error && CONNECTION_GONE.test(err.message))) lost.add(err);
  return err;
}
