// Where a phone goes for a link with app destinations or a way out of in-app browsers (docs/deep-links.md): the
// App Store or Play Store listing of the link's app, an Android intent address out of an in-app browser, or the
// iOS page with a button to Safari. Only links that have app fields or open_outside are asked (CachedLink.apps is
// null for the others: the hot path pays one null check).
import { inAppBrowser } from "../deeplinks/in-app-browsers.js";
import { appStoreUrl, intentUrl, playStoreUrl } from "../deeplinks/link-apps.js";
import { addressHash, appVisit, deviceOfAgent, languageTag } from "../deeplinks/pending-matches.js";
import { platformOf } from "./device.js";
import { acceptedLanguages } from "./targeting.js";

export interface LinkApps {
  /** App Store id, or null. */
  ios: string | null;
  /** Android application id, or null. */
  android: string | null;
  /** In-app browsers get a way out (the link's open_outside, else the account's default). */
  outside: boolean;
}

/** A cached link's apps: null when it has neither app nor way out. */
export function linkAppsOf(ios: string | null, android: string | null, outside: boolean): LinkApps | null {
  return ios === null && android === null && !outside ? null : { ios, android, outside };
}

/**
 * What a phone visitor gets instead of the destination: `store` (the listing of the app for its system),
 * `intent` (Android, in an in-app browser: the intent address), `page` (iOS, in an in-app browser: the page);
 * null: the destination as for anyone.
 */
export type AppTurn = { kind: "store"; os: "ios" | "android" } | { kind: "intent" } | { kind: "page" } | null;

export function appTurn(apps: LinkApps, userAgent: string): AppTurn {
  if (apps.outside) {
    const inApp = inAppBrowser(userAgent);
    if (inApp !== null) return inApp.os === "android" ? { kind: "intent" } : { kind: "page" };
  }
  if (apps.ios === null && apps.android === null) return null;
  const os = platformOf(userAgent);
  if (os === "ios" && apps.ios !== null) return { kind: "store", os };
  if (os === "android" && apps.android !== null) return { kind: "store", os };
  return null;
}

/** An iOS visitor in an in-app browser of a link with a way out: the page, which the fast path leaves to the route. */
export function wantsPage(apps: LinkApps, userAgent: string): boolean {
  return apps.outside && inAppBrowser(userAgent)?.os === "ios";
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
  const params = [queryOf(destination), visitQuery].filter((q) => q !== "").join("&");
  const play = apps.android === null ? null : playStoreUrl(apps.android, clickId, params);
  if (turn.kind === "store") return { location: turn.os === "ios" ? appStoreUrl(apps.ios as string) : (play as string) };
  if (turn.kind === "intent") return { location: intentUrl(destination, apps.android, play ?? destination) ?? destination };
  return { location: destination, outside: { store: apps.ios === null ? null : appStoreUrl(apps.ios) } };
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
