// Where a phone goes for a link with app destinations or a way out of in-app browsers (docs/deep-links.md): the
// App Store or Play Store listing of the link's app, an Android intent address out of an in-app browser, or the
// iOS page with a button to Safari. Only links that have app fields or open_outside are asked (CachedLink.apps is
// null for the others: the hot path pays one null check).
import { inAppBrowser } from "../deeplinks/in-app-browsers.js";
import { appStoreUrl, intentParts, intentUrl, playStoreParts, playStoreUrl } from "../deeplinks/link-apps.js";
import { addressHash, appVisit, deviceOfAgent, languageTag } from "../deeplinks/pending-matches.js";
import { type Platform, platformOf } from "./device.js";
import { acceptedLanguages } from "./targeting.js";

export interface LinkApps {
  /** App Store id, or null. */
  ios: string | null;
  /** Android application id, or null. */
  android: string | null;
  /** In-app browsers get a way out (the link's open_outside, else the account's default). */
  outside: boolean;
  /** The App Store listing of `ios`, built once. */
  store: string | null;
  /** The Play Store and intent addresses around a click id, for the last destination and visit query (appAnswer). */
  parts: AnswerParts | null;
}

/** A cached link's apps: null when it has neither app nor way out. */
export function linkAppsOf(ios: string | null, android: string | null, outside: boolean): LinkApps | null {
  return ios === null && android === null && !outside ? null : { ios, android, outside, store: ios === null ? null : appStoreUrl(ios), parts: null };
}

/** What a user agent says for the app turn: its system, and the system of the in-app browser it is (or null). */
interface AgentFacts {
  os: Platform;
  inApp: "ios" | "android" | null;
}

/** Per user agent, as the preview check remembers crawlers (a visit's agent is one of a few thousand at a time). */
const MEMO_SIZE = 4096;
const memo = new Map<string, AgentFacts>();

function factsOf(userAgent: string): AgentFacts {
  let facts = memo.get(userAgent);
  if (facts === undefined) {
    facts = { os: platformOf(userAgent), inApp: inAppBrowser(userAgent)?.os ?? null };
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(userAgent, facts);
  }
  return facts;
}

/**
 * What a phone visitor gets instead of the destination: `store` (the listing of the app for its system),
 * `intent` (Android, in an in-app browser: the intent address), `page` (iOS, in an in-app browser: the page);
 * null: the destination as for anyone.
 */
export type AppTurn = { kind: "store"; os: "ios" | "android" } | { kind: "intent" } | { kind: "page" } | null;

const INTENT: AppTurn = { kind: "intent" };
const PAGE: AppTurn = { kind: "page" };
const STORE_IOS: AppTurn = { kind: "store", os: "ios" };
const STORE_ANDROID: AppTurn = { kind: "store", os: "android" };

/** The turn for this visitor; `{kind: "page"}` (iOS, in an in-app browser) is the route's: the fast path leaves it. */
export function appTurn(apps: LinkApps, userAgent: string): AppTurn {
  if (apps.ios === null && apps.android === null && !apps.outside) return null;
  const facts = factsOf(userAgent);
  if (apps.outside && facts.inApp !== null) return facts.inApp === "android" ? INTENT : PAGE;
  if (facts.os === "ios" && apps.ios !== null) return STORE_IOS;
  if (facts.os === "android" && apps.android !== null) return STORE_ANDROID;
  return null;
}

/** A store visit, or a way out that may end in one, is named by a click id (POST /api/deeplinks/open finds it); a plain way out needs none. */
export function needsClickId(apps: LinkApps, turn: NonNullable<AppTurn>): boolean {
  return turn.kind === "store" || (turn.kind === "intent" ? apps.android !== null : apps.ios !== null);
}

/**
 * Where the visitor goes: the store listing (the Play Store's with the click id in the install referrer, then the
 * destination's query and the visit's), the intent address (the app, else the Play Store, else the destination), or
 * `destination` with `outside` set: the in-app page (with the App Store listing when the link has an iOS app).
 */
export function appAnswer(
  apps: LinkApps,
  turn: NonNullable<AppTurn>,
  destination: string,
  clickId: string | null,
  visitQuery: string,
): { location: string; outside?: { store: string | null } } {
  if (turn.kind === "page") return { location: destination, outside: { store: apps.store } };
  if (turn.kind === "store" && turn.os === "ios") return { location: apps.store as string };
  if (clickId === null) {
    // No click id (a link without an owner): built in full.
    const play = apps.android === null ? null : playStoreUrl(apps.android, clickId, paramsOf(destination, visitQuery));
    if (turn.kind === "store") return { location: play as string };
    return { location: intentUrl(destination, apps.android, play ?? destination) ?? destination };
  }
  // The same addresses from the parts around the click id, built once per destination and visit query.
  const parts = partsOf(apps, destination, visitQuery);
  if (turn.kind === "store") return { location: withId(parts.play as Around, clickId, 2) };
  const intent = parts.intent;
  return { location: intent === null ? destination : typeof intent === "string" ? intent : withId(intent, clickId, 3) };
}

/** The text before and after a click id, which is URL-encoded `times` times where it stands. */
type Around = readonly [string, string];

/** The Play Store address and the intent address around a click id (the intent whole when it carries none; null: no intent). */
interface AnswerParts {
  destination: string;
  visitQuery: string;
  play: Around | null;
  intent: Around | string | null;
}

function partsOf(apps: LinkApps, destination: string, visitQuery: string): AnswerParts {
  const last = apps.parts;
  if (last !== null && last.destination === destination && last.visitQuery === visitQuery) return last;
  const play = apps.android === null ? null : playStoreParts(apps.android, paramsOf(destination, visitQuery));
  const parts = { destination, visitQuery, play, intent: intentParts(destination, apps.android, play) };
  apps.parts = parts;
  return parts;
}

function withId(around: Around, clickId: string, times: number): string {
  let id = clickId;
  for (let i = 0; i < times; i++) id = encodeURIComponent(id);
  return around[0] + id + around[1];
}

/** What the Play Store's referrer carries after the click id: the destination's query, then the visit's. */
function paramsOf(destination: string, visitQuery: string): string {
  return [queryOf(destination), visitQuery].filter((q) => q !== "").join("&");
}

/**
 * What the click of a store turn carries (ClickInput.app): the store visit and, for the App Store and the Play Store
 * listing (and the iOS in-app page when it offers the App Store), the pending match of a deferred deep link: the
 * address's keyed hash, the system's version and device model from the user agent, the first accepted language, the
 * parameters kept for after the install, and its end (DEEPLINK_MATCH_TTL). null for the other turns.
 */
export function appVisitFacts(
  apps: LinkApps,
  turn: NonNullable<AppTurn>,
  destination: string,
  v: { userAgent: string; ip: string; acceptLanguage: string; query: string },
  at: number,
  keep: { key: Buffer; ttlMs: number } | null,
): string | null {
  const offer = turn.kind === "page" && apps.ios !== null;
  if (turn.kind !== "store" && !offer) return null;
  const platform = turn.kind === "store" ? turn.os : "ios";
  const kind = turn.kind === "store" ? "store" : "offer";
  if (keep === null) return appVisit(kind, platform, null);
  const device = deviceOfAgent(v.userAgent);
  const params = [queryOf(destination), v.query].filter((q) => q !== "").join("&");
  return appVisit(kind, platform, {
    address: addressHash(keep.key, v.ip),
    expiresAt: at + keep.ttlMs,
    os_version: device.os_version,
    device_model: device.device_model,
    language: languageTag(acceptedLanguages(v.acceptLanguage.slice(0, 500))[0]),
    params,
  });
}

/** The query of an address (without "?" and the #fragment), "" when none. */
export function queryOf(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#", q);
  return url.slice(q + 1, hash < 0 ? undefined : hash);
}
