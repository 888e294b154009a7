// What the API sources share: reading the settings, the cursor, and the loosely typed JSON of an answer.
// A wrong shape of a whole answer is a SourceError naming the source and what was wrong; a wrong field of
// one link keeps the link (with a note) so the job reports that line instead of skipping it silently.
import { type ImportSourceName, SourceError, type SourceSettings } from "../source.js";

export const SOURCE_TITLES: Record<ImportSourceName, string> = {
  bitly: "Bitly",
  shlink: "Shlink",
  yourls: "YOURLS",
  kutt: "Kutt",
  dub: "Dub",
  csv: "CSV",
  firebase: "Firebase Dynamic Links",
};

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The settings' base address without a trailing slash, or the default; a source without one is refused. */
export function baseUrl(source: ImportSourceName, settings: SourceSettings, fallback?: string): string {
  const raw = settings.base_url?.trim() || fallback;
  if (!raw) throw new SourceError(`${SOURCE_TITLES[source]}: the API's base address is required`, false);
  return raw.replace(/\/+$/, "");
}

export function token(source: ImportSourceName, settings: SourceSettings): string {
  const t = settings.token?.trim();
  if (!t) throw new SourceError(`${SOURCE_TITLES[source]}: the API token is required`, false);
  return t;
}

/** A SourceError for an answer that is JSON but not the documented shape. */
export function shapeError(source: ImportSourceName, what: string): SourceError {
  return new SourceError(`${SOURCE_TITLES[source]} answered in an unexpected shape: ${what}`, true);
}

/** The cursor this source wrote, parsed; one it cannot read (edited, from another version) is refused. */
export function readCursor<T>(source: ImportSourceName, cursor: string | null, valid: (v: unknown) => v is T): T | null {
  if (cursor === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(cursor);
  } catch {
    v = undefined;
  }
  if (!valid(v)) throw new SourceError(`${SOURCE_TITLES[source]}: the saved position of the import is unreadable; start the import again`, false);
  return v;
}

export function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

/** Reads the fields of one link, noting each field that is present but not of the documented type. */
export class LinkReader {
  readonly notes: string[] = [];

  constructor(readonly raw: Json) {}

  private wrong(field: string, expected: string): null {
    this.notes.push(`the source's ${field} is not ${expected}; it was dropped`);
    return null;
  }

  /** A string (empty strings read as null). */
  str(field: string): string | null {
    const v = this.raw[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== "string") return this.wrong(field, "a string");
    return v === "" ? null : v;
  }

  /** A non-negative integer, also as a numeric string (YOURLS sends numbers as strings). */
  count(field: string): number | null {
    const v = this.raw[field];
    if (v === undefined || v === null || v === "") return null;
    const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
    if (!isCount(n)) return this.wrong(field, "a count");
    return n;
  }

  bool(field: string): boolean | null {
    const v = this.raw[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== "boolean") return this.wrong(field, "true or false");
    return v;
  }

  /** A date as ISO 8601 (or "YYYY-MM-DD HH:MM:SS", read as UTC) in epoch ms. */
  time(field: string): number | null {
    const s = this.str(field);
    if (s === null) return null;
    const at = parseTime(s);
    if (at === null) return this.wrong(field, "a date");
    return at;
  }

  /** An array of strings. */
  strings(field: string): string[] | null {
    const v = this.raw[field];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) return this.wrong(field, "a list of names");
    return v as string[];
  }

  /** The destination: a link without one is kept with url "" and a note, so the job reports it as failed. */
  url(field: string): string {
    const u = this.str(field);
    if (u === null) {
      this.notes.push(`the source gave no destination URL (${field})`);
      return "";
    }
    return u;
  }

  /** The link's id at the source; without one the link is still reported, under a stand-in id. */
  id(field: string, standIn: string): string {
    const v = this.raw[field];
    if (typeof v === "string" && v !== "") return v;
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
    this.notes.push(`the source gave no ${field}; a re-run cannot recognise this link`);
    return standIn;
  }
}

/** ISO 8601 with or without a zone ("+0000" too; none is UTC), or "YYYY-MM-DD HH:MM:SS" (UTC). */
export function parseTime(s: string): number | null {
  const t = s.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(t)) return null;
  let iso = t.replace(" ", "T");
  if (/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(iso)) iso += "Z";
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : at;
}

/** The host and path (without the leading slash) of a short URL, or nulls. */
export function splitShortUrl(raw: string | null): { domain: string | null; alias: string | null } {
  if (!raw) return { domain: null, alias: null };
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
    const path = u.pathname.replace(/^\/+/, "");
    // A "%" sequence that does not decode is kept as it was written.
    let alias: string;
    try {
      alias = decodeURIComponent(path);
    } catch {
      alias = path;
    }
    return { domain: u.hostname.toLowerCase() || null, alias: alias || null };
  } catch {
    return { domain: null, alias: null };
  }
}

/** Runs fn over items, at most `limit` at once, keeping the order of the results. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** `base` + `path` with the query parameters (undefined and null ones left out). */
export function endpoint(base: string, path: string, query: Record<string, string | number | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return `${base}${path}${s ? `?${s}` : ""}`;
}
