// The apps of a host, checked, and the two files the phones' systems read from it (docs/deep-links.md, App
// association): Apple's apple-app-site-association (applinks with components; webcredentials when an app asks)
// and Google's Digital Asset Links statement list. Pure: no storage, no clock.
import { invalid } from "../shared/errors.js";
import type { AppsBody } from "../contract/deeplinks.js";

export interface IosApp {
  app_id: string;
  paths: string[];
  webcredentials: boolean;
}
export interface AndroidApp {
  package: string;
  sha256_cert_fingerprints: string[];
}
export interface HostApps {
  ios: IosApp[];
  android: AndroidApp[];
}

const APP_ID_RE = /^[A-Z0-9]{10}\.[A-Za-z0-9][A-Za-z0-9.-]{0,154}$/;
export const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const FINGERPRINT_RE = /^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/;
/** A path pattern of Apple's components: a path, with * (any run) and ? (one character) as wildcards. */
const PATH_RE = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]{0,255}$/;

/**
 * What an app must never open: snip's own pages and API on every host (Apple reads components in order, and the
 * first that matches decides, so these come before the owner's patterns).
 */
export const RESERVED_PATHS = [
  "/",
  "/api",
  "/api/*",
  "/app",
  "/app/*",
  "/assets/*",
  "/_snip/*",
  "/.well-known/*",
  "/report",
  "/report/*",
  "/tls/*",
  "/docs",
  "/docs/*",
  "/healthz",
  "/readyz",
  "/metrics",
  "/robots.txt",
  "/favicon.svg",
] as const;

/** The body, checked: a 400 invalid_request naming the first wrong field; fingerprints in upper case. */
export function checkApps(body: AppsBody): HostApps {
  const ios = (body.ios ?? []).map((app, i) => {
    if (!APP_ID_RE.test(app.app_id))
      throw invalid(`ios.${i}.app_id`, "must be TEAMID.bundle.id: the 10-character Team ID (A-Z, 0-9), a dot, the bundle identifier");
    const paths = app.paths ?? [];
    paths.forEach((p, j) => {
      if (!PATH_RE.test(p)) throw invalid(`ios.${i}.paths.${j}`, "must be a path starting with / (letters, digits, the URL path characters, * and ?)");
    });
    if (new Set(paths).size !== paths.length) throw invalid(`ios.${i}.paths`, "lists a path twice");
    return { app_id: app.app_id, paths, webcredentials: app.webcredentials ?? false };
  });
  const android = (body.android ?? []).map((app, i) => {
    if (!PACKAGE_RE.test(app.package)) throw invalid(`android.${i}.package`, "must be an application id such as com.example.shop");
    const prints = app.sha256_cert_fingerprints.map((f, j) => {
      if (!FINGERPRINT_RE.test(f))
        throw invalid(`android.${i}.sha256_cert_fingerprints.${j}`, "must be 32 hex pairs separated by colons (keytool -list -v prints it)");
      return f.toUpperCase();
    });
    if (new Set(prints).size !== prints.length) throw invalid(`android.${i}.sha256_cert_fingerprints`, "lists a fingerprint twice");
    return { package: app.package, sha256_cert_fingerprints: prints };
  });
  const twice = <T>(xs: T[]) => xs.find((x, i) => xs.indexOf(x) !== i);
  const iosTwice = twice(ios.map((a) => a.app_id));
  if (iosTwice !== undefined) throw invalid("ios", `lists ${iosTwice} twice`);
  const androidTwice = twice(android.map((a) => a.package));
  if (androidTwice !== undefined) throw invalid("android", `lists ${androidTwice} twice`);
  return { ios, android };
}

interface Component {
  "/": string;
  exclude?: true;
  comment?: string;
}

/** Apple's file (applinks with components, iOS 13 and later); null without an iOS app. */
export function appleFile(apps: HostApps): object | null {
  if (apps.ios.length === 0) return null;
  const reserved: Component[] = RESERVED_PATHS.map((p) => ({ "/": p, exclude: true }));
  const file: Record<string, unknown> = {
    applinks: {
      details: apps.ios.map((app) => ({
        appIDs: [app.app_id],
        components: [...reserved, ...(app.paths.length === 0 ? [{ "/": "/*", comment: "every short link" }] : app.paths.map((p) => ({ "/": p })))],
      })),
    },
  };
  const credentials = apps.ios.filter((a) => a.webcredentials).map((a) => a.app_id);
  if (credentials.length > 0) file.webcredentials = { apps: credentials };
  return file;
}

/** Google's Digital Asset Links statements (handle_all_urls); null without an Android app. */
export function androidFile(apps: HostApps): object[] | null {
  if (apps.android.length === 0) return null;
  return apps.android.map((app) => ({
    relation: ["delegate_permission/common.handle_all_urls"],
    target: { namespace: "android_app", package_name: app.package, sha256_cert_fingerprints: app.sha256_cert_fingerprints },
  }));
}
