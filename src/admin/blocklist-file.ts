// BLOCKLIST_FILE: parsing its lines (hosts, URLs, hosts-file lines, comments) without holding the event
// loop, and watching it so that every change is read again within a couple of seconds.
import { type Stats, promises as fs, unwatchFile, watchFile } from "node:fs";
import { isIP } from "node:net";
import { hostOfUrl, normalizeHost } from "../links/host-blocklist.js";

/** Lines parsed between two turns of the event loop: a few milliseconds of work each. */
const LINES_PER_TURN = 1_000;
/** Far above any published list (a million hosts is ~30 MB); a bigger file is refused whole, not half-read. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface ParsedList {
  hosts: Set<string>;
  /** Lines that were neither blank, a comment, nor an entry. */
  skipped: number;
}

/**
 * The hosts of one line, or null when the line is not an entry: a host name, a URL (its host), or a
 * hosts-file line "0.0.0.0 host [host...]". '#' starts a comment (at the start of a line or after a space;
 * a URL's fragment is not a comment). Blank and comment-only lines give [].
 */
export function parseLine(line: string): string[] | null {
  const hash = line.search(/(?:^|\s)#/);
  const text = (hash < 0 ? line : line.slice(0, hash)).trim();
  if (text === "") return [];
  const tokens = text.split(/\s+/);
  if (tokens.length > 1) {
    // A hosts-file line: an address, then one or more names.
    if (isIP(tokens[0] as string) === 0) return null;
    const hosts: string[] = [];
    for (const t of tokens.slice(1)) {
      const h = normalizeHost(t);
      if (h === null) return null;
      hosts.push(h);
    }
    return hosts;
  }
  const token = tokens[0] as string;
  const host = token.includes("://") ? hostOfUrl(token) : token;
  const normal = host === null ? null : normalizeHost(host);
  return normal === null ? null : [normal];
}

/** Parses a whole file, yielding to the event loop every LINES_PER_TURN lines (each slice a few milliseconds). */
export async function parseList(text: string): Promise<ParsedList> {
  const hosts = new Set<string>();
  let skipped = 0;
  let start = 0;
  let lines = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const entry = parseLine(text.slice(start, end));
    if (entry === null) skipped++;
    else for (const h of entry) hosts.add(h);
    start = end + 1;
    if (++lines % LINES_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { hosts, skipped };
}

export async function readList(path: string): Promise<ParsedList> {
  const stat = await fs.stat(path);
  if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
  if (stat.size > MAX_FILE_BYTES) throw new Error(`${path} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
  return parseList(await fs.readFile(path, "utf8"));
}

/**
 * Calls `onChange` whenever the file's metadata changes (written, replaced by a rename as editors and
 * `mv` do, removed, recreated, permissions changed). Polling the path's stat is what survives a rename:
 * an inotify watch follows the old inode. Returns the function that stops watching.
 */
export function watchPath(path: string, intervalMs: number, onChange: () => void): () => void {
  const listener = (curr: Stats, prev: Stats) => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.ctimeMs !== prev.ctimeMs || curr.size !== prev.size || curr.ino !== prev.ino || curr.nlink !== prev.nlink)
      onChange();
  };
  // persistent: false: the watcher never keeps a process (the CLI, a test) alive on its own.
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(path, listener);
}
