// Pending matches of deferred deep links (docs/deep-links.md, Deferred deep links): when the redirect sends a
// phone to its app's store listing (or offers the App Store on the iOS in-app page), the click carries what the
// app's first launch can be matched on: a keyed hash of the client address (never the address), the system's
// version and the device model from the user agent, the first accepted language, and the parameters the app is to
// get. The "stored" listener below writes it in the transaction that stores the click (as tracked clicks are), the
// first launch claims the best single match once (POST /api/deeplinks/open), and the hourly housekeeping deletes
// what has expired (DEEPLINK_MATCH_TTL).
import { createHmac } from "node:crypto";
import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Db } from "../storage/db.js";
import type { DeeplinkMatchRow } from "../storage/deeplink-tables.js";
import type { ClickRow } from "../clicks/click-groups.js";
import type { StoredChunk, StoredListener } from "../clicks/stored.js";

export type AppPlatform = "ios" | "android";

/** What a visit and a first launch are compared on (null: not known). */
export interface DeviceFacts {
  os_version: string | null;
  device_model: string | null;
  language: string | null;
}

/** The key of the address hashes, derived from the server's secret (SESSION_SECRET or DATA_DIR/secret). */
export function addressKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("snip deferred deep link addresses v1").digest();
}

/** HMAC-SHA-256 of a client address under `key`, base64url: equal for one address, useless without the server's secret. */
export function addressHash(key: Buffer, ip: string): string {
  return createHmac("sha256", key).update(ip).digest("base64url");
}

const IOS_AGENT_RE = /\b(iPhone|iPad|iPod)\b[^)]*?\bOS (\d{1,3}(?:_\d{1,3}){0,2})\b/;
const ANDROID_AGENT_RE = /\bAndroid (\d{1,3}(?:\.\d{1,3}){0,2})(?:;\s*([^;)]{1,96}))?/;

/** iOS 26 and later freeze the agent's system version at 18.6: Safari's own Version/26 tells the major then, else it is not known. */
const FROZEN_IOS = "18.6";
const SAFARI_VERSION_RE = /\bVersion\/(\d{2,3})\b/;

function iosVersion(told: string, userAgent: string): string | null {
  if (told !== FROZEN_IOS) return told;
  const safari = SAFARI_VERSION_RE.exec(userAgent);
  if (safari === null) return null;
  return Number(safari[1]) >= 26 ? (safari[1] as string) : told;
}

/** The system's version and the device model a phone's user agent tells (iOS: the family, iPhone/iPad/iPod; Android: the model when not reduced to "K"). */
export function deviceOfAgent(userAgent: string): { os_version: string | null; device_model: string | null } {
  const ios = IOS_AGENT_RE.exec(userAgent);
  if (ios) return { os_version: iosVersion((ios[2] as string).replace(/_/g, "."), userAgent), device_model: ios[1] as string };
  const android = ANDROID_AGENT_RE.exec(userAgent);
  if (android) {
    // "Pixel 8", "SM-S911B Build/TP1A.220624.014" (web views); Chrome's reduced agent says "K", a web view may say "wv".
    const model = (android[2] ?? "").replace(/\s+Build\/.*$/, "").trim();
    return { os_version: android[1] as string, device_model: model === "" || model === "K" || model === "wv" || model.length > 64 ? null : clean(model) };
  }
  return { os_version: null, device_model: null };
}

/** A language tag as compared: lower case, "_" as "-"; null when it is not one. */
export function languageTag(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const tag = raw.trim().toLowerCase().replace(/_/g, "-");
  return /^[a-z]{2,3}(?:-[a-z0-9]{1,8}){0,3}$/.test(tag) ? tag : null;
}

/** No tab, newline or other control character (the fields of an app visit are separated by tabs). */
function clean(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]/g, "");
}

/** A store visit (the redirect sent the phone to the listing) or an offer (the iOS in-app page with the App Store's button). */
export type AppVisitTurn = "store" | "offer";

/** What a click carries when a pending match is to be kept for it. */
export interface PendingFacts extends DeviceFacts {
  address: string;
  expiresAt: number;
  /** The destination's query and the visit's ("a=1&b=2"). */
  params: string;
}

/**
 * A click's `app` string (clicks/click-buffer.ts's ClickInput.app): "<turn>\t<platform>" and, with a pending match,
 * "\t<expires>\t<address>\t<os version>\t<model>\t<language>\t<params>". conversions/tracked-clicks.ts reads the store
 * visit from its start.
 */
export function appVisit(turn: AppVisitTurn, platform: AppPlatform, pending: PendingFacts | null): string {
  if (pending === null) return `${turn}\t${platform}`;
  const f = (v: string | null) => (v === null ? "" : clean(v));
  return [
    turn,
    platform,
    String(pending.expiresAt),
    pending.address,
    f(pending.os_version),
    f(pending.device_model),
    f(pending.language),
    f(pending.params),
  ].join("\t");
}

/** The pending match a click's `app` string carries, or null. */
export function pendingOf(app: string | null | undefined): (PendingFacts & { platform: AppPlatform }) | null {
  if (app == null) return null;
  const p = app.split("\t");
  if (p.length !== 8 || (p[1] !== "ios" && p[1] !== "android")) return null;
  const expiresAt = Number(p[2]);
  if (!Number.isSafeInteger(expiresAt) || p[3] === "") return null;
  const orNull = (v: string | undefined) => (v === undefined || v === "" ? null : v);
  return {
    platform: p[1],
    expiresAt,
    address: p[3] as string,
    os_version: orNull(p[4]),
    device_model: orNull(p[5]),
    language: orNull(p[6]),
    params: p[7] ?? "",
  };
}

type MatchInsert = [string, string, string, string, string | null, string | null, string | null, string, number, number];

/** The deeplink_matches values of the chunk's clicks that carry a pending match (most chunks: none). */
function matchesOf(rows: readonly ClickRow[]): MatchInsert[] {
  const out: MatchInsert[] = [];
  for (const r of rows) {
    if (r.app == null || r.click_id == null) continue;
    const m = pendingOf(r.app);
    if (m === null) continue;
    out.push([r.click_id, r.link_id, m.address, m.platform, m.os_version, m.device_model, m.language, m.params, r.at, m.expiresAt]);
  }
  return out;
}

const SQLITE_INSERT =
  "INSERT OR IGNORE INTO deeplink_matches (click_id, link_id, owner_id, address, platform, os_version, device_model, language, params, created_at, expires_at) " +
  "SELECT ?, l.id, l.owner_id, ?, ?, ?, ?, ?, ?, ?, ? FROM links l WHERE l.id = ? AND l.owner_id IS NOT NULL";

function sqliteStored(handle: SQLite.Database): (chunk: StoredChunk) => void {
  let insert: SQLite.Statement | null = null;
  return (chunk) => {
    const rows = matchesOf(chunk.rows);
    if (rows.length === 0) return;
    insert ??= handle.prepare(SQLITE_INSERT);
    for (const [id, link, ...rest] of rows) insert.run(id, ...rest, link);
  };
}

async function postgresStored(trx: Db, chunk: StoredChunk): Promise<void> {
  const rows = matchesOf(chunk.rows);
  if (rows.length === 0) return;
  const column = <T>(k: number) => rows.map((r) => r[k] as T);
  await sql`INSERT INTO deeplink_matches (click_id, link_id, owner_id, address, platform, os_version, device_model, language, params, created_at, expires_at)
    SELECT u.click_id, l.id, l.owner_id, u.address, u.platform, u.os_version, u.device_model, u.language, u.params, u.created_at, u.expires_at
    FROM unnest(${column(0)}::text[], ${column(1)}::text[], ${column(2)}::text[], ${column(3)}::text[], ${column(4)}::text[],
      ${column(5)}::text[], ${column(6)}::text[], ${column(7)}::text[], ${column(8)}::bigint[], ${column(9)}::bigint[])
      AS u(click_id, link_id, address, platform, os_version, device_model, language, params, created_at, expires_at)
    JOIN links l ON l.id = u.link_id
    WHERE l.owner_id IS NOT NULL
    ON CONFLICT (click_id) DO NOTHING`.execute(trx);
}

/**
 * The "stored" listener (src/click-listeners.ts) that writes the pending match of a store visit, in the transaction
 * that stores its click, on the click writer's connection.
 */
export const pendingMatchesListener: StoredListener = { name: "pending matches", sqlite: sqliteStored, postgres: postgresStored };

/** How far a candidate agrees with a first launch: null when a known fact contradicts it (never a wrong match). */
export function matchScore(c: DeviceFacts, asked: DeviceFacts): number | null {
  let score = 0;
  if (c.os_version !== null && asked.os_version !== null) {
    const a = c.os_version.split(".");
    const b = asked.os_version.split(".");
    if (a[0] !== b[0]) return null;
    const [a1 = "0", a2 = "0"] = [a[1], a[2]];
    const [b1 = "0", b2 = "0"] = [b[1], b[2]];
    score += a1 !== b1 ? 1 : a2 !== b2 ? 2 : 4;
  }
  if (c.device_model !== null && asked.device_model !== null) {
    const a = c.device_model.toLowerCase().replace(/\s+/g, "");
    const b = asked.device_model.toLowerCase().replace(/\s+/g, "");
    // The user agent names the family (iPhone), the app may name the machine (iPhone15,2).
    if (a === b) score += 3;
    else if (b.startsWith(a) || a.startsWith(b)) score += 2;
    else return null;
  }
  if (c.language !== null && asked.language !== null) {
    if (c.language === asked.language) score += 2;
    else if (c.language.split("-")[0] === asked.language.split("-")[0]) score += 1;
    else return null;
  }
  return score;
}

/** At most this many open candidates of one address are compared (the newest). */
const CANDIDATES = 50;

/**
 * The best single open candidate of `address` for a first launch on `platform` among `ownerId`'s links: null when
 * there is none, or when the two best score alike (cannot be told apart).
 */
export async function bestMatch(
  db: Db,
  q: { ownerId: string; address: string; platform: AppPlatform; facts: DeviceFacts; now: number },
): Promise<DeeplinkMatchRow | null> {
  const rows = await db
    .selectFrom("deeplink_matches")
    .selectAll()
    .where("address", "=", q.address)
    .where("expires_at", ">", q.now)
    .where("owner_id", "=", q.ownerId)
    .where("platform", "=", q.platform)
    .where("used_at", "is", null)
    .orderBy("created_at", "desc")
    .limit(CANDIDATES)
    .execute();
  const scored = rows
    .map((r) => ({ r, score: matchScore(r, q.facts) }))
    .filter((s): s is { r: DeeplinkMatchRow; score: number } => s.score !== null)
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (best === undefined || (second !== undefined && second.score === best.score)) return null;
  return best.r;
}

/** Marks the match used at `now`; false when another ask took it first (one statement: of concurrent asks one wins). */
export async function claimMatch(db: Db, clickId: string, now: number): Promise<boolean> {
  const r = await db.updateTable("deeplink_matches").set({ used_at: now }).where("click_id", "=", clickId).where("used_at", "is", null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Deletes the matches expired before `now` (housekeeping, every hour). */
export async function purgeExpiredMatches(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom("deeplink_matches").where("expires_at", "<=", now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
