// What an app asks when it opens (POST /api/deeplinks/open, docs/deep-links.md): the link it was opened through
// and where to go in the app. Three ways to know the link: a click id the app read from the Play Store's install
// referrer (deterministic, an install), the short link's address the system opened the app with (a universal link
// or app link: deterministic, an open), or the device's facts on a first launch, matched against the pending
// matches of this client address (probabilistic, an install, used once). Each answer found records an app event,
// announced on the bus (app.install, app.open) inside its transaction for the click stream and webhooks. Only the
// key owner's links are ever answered; anything else is "none", the same answer as a click id that never was.
import type { Db } from "../storage/db.js";
import type { EventPublisher } from "../shared/events.js";
import { iso } from "../shared/clock.js";
import { newId } from "../shared/ids.js";
import { type AppPlatform, type DeviceFacts, bestMatch, claimMatch } from "./pending-matches.js";

export type MatchKind = "deterministic" | "probabilistic";

export interface OpenAnswer {
  match: MatchKind | "none";
  link: { id: string; alias: string; url: string } | null;
  /** The link's app_path. */
  path: string | null;
  /** The destination's query parameters and the visit's (the visit's win a name both have). */
  params: Record<string, string>;
}

export interface OpenDeps {
  db: Db;
  events?: EventPublisher;
  /** Writes the clicks still buffered (a click id asked right after its redirect may not be stored yet). */
  flush: () => Promise<void>;
}

const NONE: OpenAnswer = { match: "none", link: null, path: null, params: {} };
/** At most this many parameters are returned. */
const MAX_PARAMS = 100;
/** A click id this recent that is not found yet may still be in the click writer's buffer. */
const BUFFERED_MS = 5 * 60_000;

interface LinkFacts {
  id: string;
  alias: string;
  domain: string;
  url: string;
  app_path: string | null;
  folder_id: string | null;
}

/** Name-value pairs of the queries, in order (a later one wins a name both have); empty names and undecodable pairs are left out. */
export function paramsOf(...queries: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const q of queries) {
    if (q === "") continue;
    for (const [name, value] of new URLSearchParams(q)) {
      if (name === "" || (!(name in out) && n >= MAX_PARAMS)) continue;
      if (!(name in out)) n++;
      out[name] = value;
    }
  }
  return out;
}

/** The query of an address, "" when none (the #fragment left out). */
function queryOf(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#", q);
  return url.slice(q + 1, hash < 0 ? undefined : hash);
}

function answer(link: LinkFacts, match: MatchKind, params: Record<string, string>): OpenAnswer {
  return { match, link: { id: link.id, alias: link.alias, url: link.url }, path: link.app_path, params };
}

/** Records the event (once per click id and kind) and announces it in the same transaction; false when it was recorded before. */
async function recordEvent(
  trx: Db,
  events: EventPublisher | undefined,
  e: { link: LinkFacts; ownerId: string; kind: "app_install" | "app_open"; match: MatchKind; clickId: string | null; at: number },
): Promise<boolean> {
  const id = newId();
  const row = await trx
    .insertInto("app_events")
    .values({ id, link_id: e.link.id, owner_id: e.ownerId, kind: e.kind, match: e.match, click_id: e.clickId, created_at: e.at })
    .onConflict((oc) => oc.columns(["click_id", "kind"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (row === undefined) return false;
  const { id: linkId, alias, domain, url, folder_id } = e.link;
  const data = { app_event: { id, kind: e.kind, match: e.match, click_id: e.clickId, created_at: iso(e.at) } };
  await events?.publish(e.kind === "app_install" ? "app.install" : "app.open", {
    ownerId: e.ownerId,
    within: trx,
    at: e.at,
    link: { id: linkId, alias, domain, url, folder_id },
    data,
  });
  return true;
}

/** The epoch ms a click id of the house's form was made at (its 48-bit prefix). */
function clickIdTime(id: string): number {
  return Buffer.from(id.slice(0, 8), "base64url").readUIntBE(0, 6);
}

async function trackedLink(db: Db, ownerId: string, clickId: string) {
  return db
    .selectFrom("tracked_clicks as t")
    .innerJoin("links as l", "l.id", "t.link_id")
    .leftJoin("deeplink_matches as m", "m.click_id", "t.id")
    .select(["l.id", "l.alias", "l.domain", "l.url", "l.app_path", "l.folder_id", "t.utm", "m.params"])
    .where("t.id", "=", clickId)
    .where("t.owner_id", "=", ownerId)
    .where("l.owner_id", "=", ownerId)
    .executeTakeFirst();
}

/**
 * A click id from the install referrer: its link (the owner's), deterministic; the install recorded once per click
 * id, and the click's pending match used. Parameters: those kept with the store visit, else the destination's and
 * the visit's UTM values.
 */
export async function openFromClick(deps: OpenDeps, ownerId: string, clickId: string, now: number): Promise<OpenAnswer> {
  let row = await trackedLink(deps.db, ownerId, clickId);
  if (row === undefined && Math.abs(now - clickIdTime(clickId)) < BUFFERED_MS) {
    await deps.flush();
    row = await trackedLink(deps.db, ownerId, clickId);
  }
  if (row === undefined) return NONE;
  const link = row;
  await deps.db.transaction().execute(async (trx) => {
    await claimMatch(trx, clickId, now);
    await recordEvent(trx, deps.events, { link, ownerId, kind: "app_install", match: "deterministic", clickId, at: now });
  });
  return answer(link, "deterministic", row.params != null ? paramsOf(row.params) : paramsOf(queryOf(link.url), row.utm ?? ""));
}

/** The short link the app was opened with (found by the route from its address): deterministic, an open. */
export async function openFromLink(deps: OpenDeps, ownerId: string, linkId: string | null, visitQuery: string, now: number): Promise<OpenAnswer> {
  if (linkId === null) return NONE;
  const link = await deps.db
    .selectFrom("links")
    .select(["id", "alias", "domain", "url", "app_path", "folder_id"])
    .where("id", "=", linkId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  if (link === undefined) return NONE;
  await deps.db
    .transaction()
    .execute((trx) => recordEvent(trx, deps.events, { link, ownerId, kind: "app_open", match: "deterministic", clickId: null, at: now }));
  return answer(link, "deterministic", paramsOf(queryOf(link.url), visitQuery));
}

/** A first launch: the best single pending match of this address among the owner's links, used once (probabilistic, an install). */
export async function openFromDevice(
  deps: OpenDeps,
  q: { ownerId: string; address: string; platform: AppPlatform; facts: DeviceFacts },
  now: number,
): Promise<OpenAnswer> {
  const match = await bestMatch(deps.db, { ...q, now });
  if (match === null) return NONE;
  const link = await deps.db.transaction().execute(async (trx) => {
    if (!(await claimMatch(trx, match.click_id, now))) return null;
    const l = await trx
      .selectFrom("links")
      .select(["id", "alias", "domain", "url", "app_path", "folder_id"])
      .where("id", "=", match.link_id)
      .where("owner_id", "=", q.ownerId)
      .executeTakeFirst();
    if (l === undefined) return null;
    await recordEvent(trx, deps.events, { link: l, ownerId: q.ownerId, kind: "app_install", match: "probabilistic", clickId: match.click_id, at: now });
    return l;
  });
  return link === null ? NONE : answer(link, "probabilistic", paramsOf(match.params));
}
