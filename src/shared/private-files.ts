// Files that hold secrets (the database, outbox mails with live tokens, the session secret) are for the
// service's own user only: directories 0700, files 0600, whatever the umask.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the directory (and missing parents) 0700. An existing one keeps its mode unless `narrow`:
 * DATA_DIR may be a folder the operator chose for other things too, the outbox is ours alone.
 */
export function makePrivateDir(dir: string, narrow = false): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (narrow) narrowMode(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes the file 0600: created empty when missing and `create` (SQLite then keeps the mode, and gives
 * it to the -wal and -shm files it creates beside it), narrowed when others could read it (a file an
 * older version created 0644).
 */
export function makePrivateFile(file: string, create = true): void {
  if (create) closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  else if (!existsSync(file)) return;
  narrowMode(file, PRIVATE_FILE_MODE);
}

function narrowMode(path: string, mode: number): void {
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, mode);
}
