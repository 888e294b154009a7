// Tracked clicks (docs/conversions.md, The click id): a visit of a link that tracks conversions gets a click id
// of 128 random bits, sent to the destination in the account's query parameter and stored here with the link, the
// destination chosen and the visit's country, device, browser, OS, referrer and UTM values, so that a lead can name it. The redirect
// never waits for the write: ids are made on the spot and the rows written in batches, a few per second.
import { randomBytes } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Storage } from "../storage/db.js";
import type { TrackedClickRow } from "../storage/conversion-tables.js";
import { describeUserAgent, referrerHost } from "../clicks/describe.js";

/** Click ids' random bytes, drawn from the CSPRNG 256 ids at a time (one draw per id cost more than the rest of a redirect). */
const POOL_BYTES = 16 * 256;
let pool = Buffer.alloc(0);
let taken = 0;

/** A click id: 16 bytes from the CSPRNG, base64url (22 characters); each pooled byte serves one id. */
export function newClickId(): string {
  if (taken >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const id = pool.toString("base64url", taken, taken + 16);
  taken += 16;
  return id;
}

/** A tracked visit as the redirect knows it. */
export interface TrackedVisit {
  id: string;
  ownerId: string;
  linkId: string;
  destination: string | null;
  /** Resolved country code, or null. */
  country: string | null;
  userAgent: string;
  referer: string;
  /** The short URL's UTM values (clicks/utm-values.ts), null without any. */
  utm?: string | null;
  at: number;
}

/** The stored row of a visit: device as the click statistics name it ("bot" for a bot), the referrer's host. */
export function trackedRow(v: TrackedVisit): TrackedClickRow {
  const ua = describeUserAgent(v.userAgent);
  return {
    id: v.id,
    owner_id: v.ownerId,
    link_id: v.linkId,
    destination: v.destination,
    country: v.country,
    device: ua.isBot ? "bot" : ua.device,
    referrer_host: referrerHost(v.referer),
    browser: ua.browser,
    os: ua.os,
    utm: v.utm ?? null,
    at: v.at,
  };
}

/** Where tracked clicks are written: on SQLite through one prepared statement, on PostgreSQL in one statement of arrays. */
export type TrackedStorage = Pick<Storage, "db" | "dialect" | "sqlite">;

const COLUMNS = [
  "id",
  "owner_id",
  "link_id",
  "destination",
  "country",
  "device",
  "referrer_host",
  "browser",
  "os",
  "utm",
  "at",
] as const satisfies ReadonlyArray<keyof TrackedClickRow>;

const SQLITE_INSERT =
  `INSERT OR IGNORE INTO tracked_clicks (${COLUMNS.join(", ")}) SELECT ${COLUMNS.map(() => "?").join(", ")} ` +
  "WHERE EXISTS (SELECT 1 FROM links WHERE id = ?)";
const sqliteWrites = new WeakMap<SQLite.Database, (rows: TrackedClickRow[]) => void>();

/** One transaction of prepared inserts: a few microseconds a row, where building each batch's SQL cost twenty. */
function sqliteWrite(sqlite: SQLite.Database): (rows: TrackedClickRow[]) => void {
  let write = sqliteWrites.get(sqlite);
  if (!write) {
    const insert = sqlite.prepare(SQLITE_INSERT);
    write = sqlite.transaction((rows: TrackedClickRow[]) => {
      for (const r of rows)
        insert.run(r.id, r.owner_id, r.link_id, r.destination, r.country, r.device, r.referrer_host, r.browser, r.os, r.utm, r.at, r.link_id);
    });
    sqliteWrites.set(sqlite, write);
  }
  return write;
}

/** Writes rows at once; ignores a row whose link is gone, and an id already stored. */
export async function storeTrackedClicks(storage: TrackedStorage, rows: TrackedClickRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (storage.sqlite) {
    sqliteWrite(storage.sqlite)(rows);
    return;
  }
  const column = <K extends (typeof COLUMNS)[number]>(k: K) => rows.map((r) => r[k]);
  await sql`INSERT INTO tracked_clicks (${sql.join(COLUMNS.map((c) => sql.ref(c)))})
    SELECT u.* FROM unnest(${column("id")}::text[], ${column("owner_id")}::text[], ${column("link_id")}::text[], ${column("destination")}::text[],
      ${column("country")}::text[], ${column("device")}::text[], ${column("referrer_host")}::text[],
      ${column("browser")}::text[], ${column("os")}::text[], ${column("utm")}::text[], ${column("at")}::bigint[])
      AS u(${sql.join(COLUMNS.map((c) => sql.ref(c)))})
    WHERE EXISTS (SELECT 1 FROM links l WHERE l.id = u.link_id)
    ON CONFLICT (id) DO NOTHING`.execute(storage.db);
}

/** How often buffered tracked clicks are written: a lead can name a click this long after its redirect. */
export const TRACKED_FLUSH_MS = 100;

/** Buffers the redirect's tracked visits and writes them every TRACKED_FLUSH_MS, and at close. */
export class TrackedClickWriter {
  private pending: TrackedVisit[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: TrackedStorage,
    private readonly failed: (err: unknown, lost: number) => void,
  ) {}

  record(v: TrackedVisit): void {
    this.pending.push(v);
    this.timer ??= setTimeout(() => void this.flush(), TRACKED_FLUSH_MS);
  }

  /** Writes what is buffered; resolves once every visit recorded before the call is stored (or reported lost). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await storeTrackedClicks(this.storage, batch.map(trackedRow));
      } catch (err) {
        this.failed(err, batch.length);
      }
    });
    return this.writing;
  }
}

/** `url` with `name=value` in its query (the query it had kept, a value of that name replaced), before any #fragment. */
export function withQueryParam(url: string, name: string, value: string): string {
  const hash = url.indexOf("#");
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const q = base.indexOf("?");
  const pair = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  if (q < 0) return `${base}?${pair}${fragment}`;
  const kept = base
    .slice(q + 1)
    .split("&")
    .filter((p) => p !== "" && decodeURIComponentSafe(p.split("=")[0]!) !== name);
  return `${base.slice(0, q)}?${[...kept, pair].join("&")}${fragment}`;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}
