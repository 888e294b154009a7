// `snip backup` and `snip restore` for SQLite (docs/operations.md, Backups). A backup is taken with
// SQLite's online backup API while the service runs: one read transaction copies every page, so the
// copy is the database as of one moment (a plain file copy of a WAL database while it serves can be
// torn). A restore puts a checked backup in place on a stopped service and keeps what it replaces.
import { existsSync, fsyncSync, openSync, closeSync, renameSync, copyFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import SQLite from "better-sqlite3";
import { makePrivateFile } from "../shared/private-files.js";
import { knownMigrations } from "./migrate.js";

/** A backup or restore refused, with what to do about it (one line for the operator). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

export interface BackupSummary {
  file: string;
  bytes: number;
  links: number;
  clicks: number;
  /** The newest migration the database has. */
  schema: string;
}

/** What a database file holds, after SQLite's integrity check (throws BackupError when it fails). */
function inspect(handle: SQLite.Database, file: string): Omit<BackupSummary, "bytes"> {
  const check = handle.pragma("integrity_check") as { integrity_check: string }[];
  if (check.length !== 1 || check[0]!.integrity_check !== "ok")
    throw new BackupError(`${file} fails SQLite's integrity check: ${check[0]?.integrity_check ?? "no answer"}`);
  const has = (table: string) => handle.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== undefined;
  if (!has("kysely_migration")) throw new BackupError(`${file} is not a snip database (it has no migrations table)`);
  const names = (handle.prepare("select name from kysely_migration order by name").all() as { name: string }[]).map((r) => r.name);
  const count = (table: string) => (has(table) ? Number((handle.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n) : 0);
  // Raw clicks of links with few clicks wait in click_staging until the next roll-up (src/clicks/README.md).
  return { file, links: count("links"), clicks: count("clicks") + count("click_staging"), schema: names.at(-1) ?? "none" };
}

function sizeOf(handle: SQLite.Database): number {
  const pages = Number(handle.pragma("page_count", { simple: true }));
  return pages * Number(handle.pragma("page_size", { simple: true }));
}

/** Copies the live database `source` to the new file `dest` (refused if it exists), then checks the copy. */
export async function backupSqlite(source: string, dest: string): Promise<BackupSummary> {
  if (!existsSync(source)) throw new BackupError(`no database at ${source} (is DATA_DIR or DATABASE_URL right?)`);
  if (existsSync(dest)) throw new BackupError(`${dest} already exists: name a new file`);
  // Created empty and private first: the copy holds password hashes, never readable by others.
  makePrivateFile(dest);
  const handle = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    handle.pragma("busy_timeout = 5000");
    // Every page in one step: one read transaction, so writes by the running service (which never
    // block on it in WAL mode) cannot restart the copy or tear it.
    await handle.backup(dest, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
  } catch (err) {
    rmSync(dest, { force: true });
    throw err;
  } finally {
    handle.close();
  }
  const copy = new SQLite(dest, { fileMustExist: true });
  try {
    // The copy keeps the source's WAL mode; one self-contained file is what a backup should be.
    copy.pragma("journal_mode = DELETE");
    return { ...inspect(copy, dest), bytes: sizeOf(copy) };
  } finally {
    copy.close();
  }
}

/**
 * Fails unless no other process has `file` open: leaving WAL mode needs the only connection, and
 * SQLite refuses it (busy) while the service runs on the file. The database is then in rollback mode,
 * with its WAL checkpointed into it and removed.
 */
function assertUnused(file: string): void {
  const handle = new SQLite(file, { fileMustExist: true });
  try {
    handle.pragma("busy_timeout = 0");
    let mode: unknown;
    try {
      mode = handle.pragma("journal_mode = DELETE", { simple: true });
    } catch {
      mode = "busy";
    }
    if (mode !== "delete") throw new BackupError(`the service is running on ${file}: stop every snip process using it, then restore`);
  } finally {
    handle.close();
  }
}

/** A name beside `file` for what a restore replaces: `<name>.replaced-<UTC time>`. */
function asideName(file: string, now: Date): string {
  return join(dirname(file), `${basename(file)}.replaced-${now.toISOString().replace(/[:.]/g, "-")}`);
}

export interface RestoreResult extends BackupSummary {
  /** Where the database that was in place (and its click journal) went, or null when there was none. */
  replaced: string | null;
  journalReplaced: string | null;
}

/**
 * Puts the backup `from` in place as `target` (the service stopped): checked first (integrity, a snip
 * schema this version knows), copied beside the target and renamed over it. The database it replaces,
 * and the click journal of that database (its clicks belong to it), are kept under `.replaced-<time>`.
 */
export function restoreSqlite(from: string, target: string, journalDir: string, now = new Date()): RestoreResult {
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`);
  const backup = new SQLite(from, { readonly: true, fileMustExist: true });
  let summary: BackupSummary;
  try {
    summary = { ...inspect(backup, from), bytes: sizeOf(backup) };
    const known = new Set(knownMigrations("sqlite"));
    const names = (backup.prepare("select name from kysely_migration").all() as { name: string }[]).map((r) => r.name);
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length > 0) throw new BackupError(`${from} was made by a newer snip (migration ${unknown.join(", ")}): restore it with that version`);
  } finally {
    backup.close();
  }
  if (existsSync(target)) assertUnused(target);
  const staged = `${target}.restoring`;
  copyFileSync(from, staged);
  const fd = openSync(staged, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  makePrivateFile(staged);
  const replaced = existsSync(target) ? asideName(target, now) : null;
  if (replaced) renameSync(target, replaced);
  for (const side of ["-wal", "-shm", "-journal"]) rmSync(target + side, { force: true });
  renameSync(staged, target);
  const journalReplaced = existsSync(journalDir) ? asideName(journalDir, now) : null;
  if (journalReplaced) renameSync(journalDir, journalReplaced);
  return { ...summary, file: target, replaced, journalReplaced };
}
