// App destinations per link (docs/deep-links.md, App destinations): the App Store id and the Android package of
// the app a link's phone visitors are sent to the store of, the in-app path the app opens after the install,
// and whether visitors in an in-app browser get a way out (open_outside). Checked here for creation, edits, bulk
// rows, imports and the external API alike (links/link-details.ts); the addresses the redirect gives are built
// here too.
import { invalid, type FieldChecks } from "../shared/errors.js";
import type { LinkUpdate } from "../storage/schema.js";
import { PACKAGE_RE } from "./association-files.js";

export interface LinkAppsInput {
  app_ios_store_id?: string | null;
  app_android_package?: string | null;
  app_path?: string | null;
  open_outside?: boolean | null;
}

export type LinkAppsSet = Pick<LinkUpdate, "app_ios_store_id" | "app_android_package" | "app_path" | "open_outside">;

/** App Store ids are the digits of `apps.apple.com/app/id<digits>`. */
const STORE_ID_RE = /^[1-9][0-9]{0,14}$/;
/** Android's own limit on an application id. */
export const MAX_PACKAGE = 255;
export const MAX_APP_PATH = 1024;
/** A path and query as a URL carries them: printable ASCII without spaces, quotes, angle brackets, backslashes or a fragment. */
const APP_PATH_RE = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$/;

export const APP_MESSAGES = {
  storeId: "must be the App Store id: the digits after id in apps.apple.com/app/id…",
  package: "must be an Android application id such as com.example.shop",
  path: `must be a path starting with / (letters, digits and URL punctuation, at most ${MAX_APP_PATH} characters)`,
} as const;

function blankToNull(raw: string | null): string | null {
  if (raw === null) return null;
  const v = raw.trim();
  return v === "" ? null : v;
}

/** The columns these fields set (absent: unchanged); every wrong field noted in `checks`. */
export function checkLinkApps(checks: FieldChecks, input: LinkAppsInput): LinkAppsSet {
  const set: LinkAppsSet = {};
  if (input.app_ios_store_id !== undefined) {
    const v = blankToNull(input.app_ios_store_id);
    set.app_ios_store_id = checks.run(() => {
      // "id123" as the store's address spells it is taken too.
      const digits = v === null ? null : v.replace(/^id/i, "");
      if (digits !== null && !STORE_ID_RE.test(digits)) throw invalid("app_ios_store_id", APP_MESSAGES.storeId);
      return digits;
    });
  }
  if (input.app_android_package !== undefined) {
    const v = blankToNull(input.app_android_package);
    set.app_android_package = checks.run(() => {
      if (v !== null && (v.length > MAX_PACKAGE || !PACKAGE_RE.test(v))) throw invalid("app_android_package", APP_MESSAGES.package);
      return v;
    });
  }
  if (input.app_path !== undefined) {
    const v = blankToNull(input.app_path);
    set.app_path = checks.run(() => {
      if (v !== null && (v.length > MAX_APP_PATH || !APP_PATH_RE.test(v))) throw invalid("app_path", APP_MESSAGES.path);
      return v;
    });
  }
  if (input.open_outside !== undefined) set.open_outside = input.open_outside === null ? null : input.open_outside ? 1 : 0;
  return set;
}

/** The store listing of an iOS app. */
export function appStoreUrl(storeId: string): string {
  return `https://apps.apple.com/app/id${storeId}`;
}

/**
 * The Play Store listing of an Android app with the install referrer the app reads after the install (Install
 * Referrer API): the click id first (`snip_click_id`, for POST /api/deeplinks/open), then `params` (the
 * destination's query and the visit's, utm_* among them).
 */
export function playStoreUrl(pkg: string, clickId: string | null, params: string): string {
  if (clickId !== null) {
    const [before, after] = playStoreParts(pkg, params);
    return before + encodeURIComponent(encodeURIComponent(clickId)) + after;
  }
  return `https://play.google.com/store/apps/details?id=${encodeURIComponent(pkg)}${params === "" ? "" : `&referrer=${encodeURIComponent(params)}`}`;
}

/**
 * playStoreUrl with a click id, as the text before and after the id (which stands there encoded twice: once in the
 * referrer, once as the referrer is encoded). encodeURIComponent works character by character, so encoding the
 * parts apart gives the same address; the redirect builds these once per destination (app-turn.ts).
 */
export function playStoreParts(pkg: string, params: string): readonly [string, string] {
  return [
    `https://play.google.com/store/apps/details?id=${encodeURIComponent(pkg)}&referrer=${encodeURIComponent("snip_click_id=")}`,
    params === "" ? "" : encodeURIComponent(`&${params}`),
  ];
}

/**
 * Chrome's intent address for an https destination (developer.chrome.com/docs/android/intents):
 * `intent://HOST/PATH?QUERY#Intent;scheme=https;package=PKG;S.browser_fallback_url=ENCODED;end`. Android opens
 * the app `pkg` at the destination when it is installed and handles it; without a package, whatever handles the
 * address (the app through its verified app link, else the system browser); `fallback` when nothing can.
 * null when the destination is not http(s) (no intent can carry it).
 */
export function intentUrl(destination: string, pkg: string | null, fallback: string): string | null {
  const m = /^(https?):\/\/([^#]*)/i.exec(destination);
  if (m === null) return null;
  const scheme = (m[1] as string).toLowerCase();
  const rest = m[2] as string;
  return `intent://${rest}#Intent;scheme=${scheme};${pkg === null ? "" : `package=${pkg};`}S.browser_fallback_url=${encodeURIComponent(fallback)};end`;
}

/**
 * intentUrl with the Play Store address of `play` (its parts around a click id) as the fallback, as the text around
 * the id (encoded once more there); the whole address when there is no Play Store address (the destination is the
 * fallback); null when no intent can carry the destination.
 */
export function intentParts(destination: string, pkg: string | null, play: readonly [string, string] | null): readonly [string, string] | string | null {
  if (play === null) return intentUrl(destination, pkg, destination);
  const url = intentUrl(destination, pkg, "");
  if (url === null) return null;
  const end = ";end";
  return [url.slice(0, -end.length) + encodeURIComponent(play[0]), encodeURIComponent(play[1]) + end];
}

/** Safari's own scheme for an https or http address (opens it in Safari from any app's web view); null for others. */
export function safariUrl(destination: string): string | null {
  const m = /^(https?):\/\//i.exec(destination);
  if (m === null) return null;
  return `x-safari-${(m[1] as string).toLowerCase()}://${destination.slice(m[0].length)}`;
}
