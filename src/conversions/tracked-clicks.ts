// Tracked clicks (docs/conversions.md, The click id): a visit of a link that tracks conversions gets a click id
// (a time prefix and 96 random bits), sent to the destination in the account's query parameter. The id travels
// on the click itself (ClickInput.clickId: the click journal, the writer) and its row, with the link, the
// destination chosen and the visit's country, device, browser, OS, referrer and UTM values, is written by the "stored" listener below
// in the transaction that stores the click: the redirect does no write of its own, and a killed process's
// journal replays the id with its click.
import { randomBytes } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db, Storage } from "../storage/db.js";
import { columnLiteral } from "../storage/pg-arrays.js";
import type { TrackedClickRow } from "../storage/conversion-tables.js";
import type { ClickRow } from "../clicks/click-groups.js";
import type { StoredChunk, StoredListener } from "../clicks/stored.js";
import { describeUserAgent, referrerHost } from "../clicks/describe.js";

/** Random bytes per click id (96 bits), drawn from the CSPRNG 256 ids at a time (one draw per id cost more than the rest of a redirect). */
const RANDOM_BYTES = 12;
const POOL_BYTES = RANDOM_BYTES * 256;
let pool = Buffer.alloc(0);
let taken = 0;
/** The time prefix of the last millisecond an id was made in (ids of one millisecond share it). */
let prefixAt = -1;
let prefix = "";
const prefixBytes = Buffer.alloc(6);

/**
 * A click id made at `at` (epoch ms): its 48-bit time, big-endian, then 12 bytes from the CSPRNG, base64url
 * (8 + 16 = 24 characters). The time prefix keeps the ids of a few minutes close together in the tracked_clicks
 * index (an insert touches the pages the last ones did, where fully random keys touched a random page each),
 * and tells a lead whether a click it does not find yet may still be in the writer's buffer.
 */
export function newClickId(at: number = Date.now()): string {
  if (at !== prefixAt) {
    prefixBytes.writeUIntBE(Math.max(0, Math.min(at, 2 ** 48 - 1)), 0, 6);
    prefix = prefixBytes.toString("base64url");
    prefixAt = at;
  }
  if (taken >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const id = prefix + pool.toString("base64url", taken, taken + RANDOM_BYTES);
  taken += RANDOM_BYTES;
  return id;
}

const CLICK_ID_RE = /^[A-Za-z0-9_-]{24}$/;

/** The time a click id of newClickId's form was made at (epoch ms), or null for any other string (ids made before it: 22 random characters). */
export function clickIdTime(id: string): number | null {
  if (!CLICK_ID_RE.test(id)) return null;
  return Buffer.from(id.slice(0, 8), "base64url").readUIntBE(0, 6);
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
    store: null,
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

/**
 * The store a click was sent to: a click's `app` (redirect/app-turn.ts's appVisit) starts "store<TAB>ios" or
 * "store<TAB>android" for a store visit ("offer..." for the in-app page that only offers the App Store), else null.
 */
export function storeOf(app: string | null | undefined): string | null {
  if (app == null || !app.startsWith("store\t")) return null;
  const os = app.split("\t", 2)[1];
  return os === "ios" || os === "android" ? os : null;
}

type StoredTracked = [string, string | null, string | null, string, string, string, string, string | null, number, string, string | null];

/** The tracked_clicks row of a stored click that carries a click id (the writer described it: device, browser, OS, referrer host, country, UTM, store). */
function storedRow(r: ClickRow & { click_id: string }): StoredTracked {
  return [
    r.click_id,
    r.destination,
    r.country === "unknown" ? null : r.country,
    r.is_bot === 1 ? "bot" : r.device,
    r.referrer,
    r.browser,
    r.os,
    r.utm,
    r.at,
    r.link_id,
    storeOf(r.app),
  ];
}

/** The rows of a chunk that carry a click id (most chunks: none; one property read per row). */
function trackedOf(rows: readonly ClickRow[]): (ClickRow & { click_id: string })[] {
  const out: (ClickRow & { click_id: string })[] = [];
  for (const r of rows) if (r.click_id != null) out.push(r as ClickRow & { click_id: string });
  return out;
}

/** A chunk's rows come from live links (the writer leaves a deleted link's out): the owner is read once per link, an ownerless link stores none. */
const SQLITE_OWNER = "SELECT owner_id FROM links WHERE id = ?";
/** A replayed click id is stored once. */
const SQLITE_STORED =
  "INSERT OR IGNORE INTO tracked_clicks (id, destination, country, device, referrer_host, browser, os, utm, at, link_id, store, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

function sqliteStored(handle: SQLite.Database): (chunk: StoredChunk) => void {
  let s: { owner: SQLite.Statement<[string], { owner_id: string | null }>; insert: SQLite.Statement } | null = null;
  return (chunk) => {
    const rows = trackedOf(chunk.rows);
    if (rows.length === 0) return;
    // Prepared on first use: the table may not exist when the writer is built (CLI migrate).
    s ??= { owner: handle.prepare(SQLITE_OWNER), insert: handle.prepare(SQLITE_STORED) };
    let link = "";
    let owner: string | null = null;
    for (const r of rows) {
      if (r.link_id !== link) {
        link = r.link_id;
        owner = s.owner.get(link)?.owner_id ?? null;
      }
      if (owner !== null) s.insert.run(...storedRow(r), owner);
    }
  };
}

async function postgresStored(trx: Db, chunk: StoredChunk): Promise<void> {
  const rows = trackedOf(chunk.rows).map(storedRow);
  if (rows.length === 0) return;
  const column = (k: number) => columnLiteral(rows, k);
  await sql`INSERT INTO tracked_clicks (id, owner_id, link_id, destination, country, device, referrer_host, browser, os, utm, at, store)
    SELECT u.id, l.owner_id, l.id, u.destination, u.country, u.device, u.referrer_host, u.browser, u.os, u.utm, u.at, u.store
    FROM unnest(${column(0)}::text[], ${column(1)}::text[], ${column(2)}::text[], ${column(3)}::text[], ${column(4)}::text[],
      ${column(5)}::text[], ${column(6)}::text[], ${column(7)}::text[], ${column(8)}::bigint[], ${column(9)}::text[], ${column(10)}::text[])
      AS u(id, destination, country, device, referrer_host, browser, os, utm, at, link_id, store)
    JOIN links l ON l.id = u.link_id
    WHERE l.owner_id IS NOT NULL
    ON CONFLICT (id) DO NOTHING`.execute(trx);
}

/**
 * The "stored" listener (src/click-listeners.ts) that writes the tracked_clicks rows of the clicks that carry a
 * click id, in the transaction that stores those clicks, on the click writer's connection (its thread on SQLite).
 */
export const trackedClicksListener: StoredListener = { name: "tracked clicks", sqlite: sqliteStored, postgres: postgresStored };

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
