// The in-app browsers (docs/deep-links.md, A way out of in-app browsers): the web views Instagram, Facebook,
// Messenger, TikTok, LinkedIn, Snapchat and X open links in, where universal links and app links do not fire and
// the visitor is not signed in anywhere. One table, read by the redirect for links with `open_outside`; each
// marker is what that app adds to its web view's user agent on iOS and on Android
// (test/unit/in-app-browsers.test.ts holds a captured user agent of each app on each system).

export type InAppBrowser = "instagram" | "facebook" | "messenger" | "tiktok" | "linkedin" | "snapchat" | "x";

/** In order: Messenger's markers before Facebook's (Messenger's iOS agent also says FBAN). */
const MARKERS: ReadonlyArray<readonly [InAppBrowser, RegExp]> = [
  ["instagram", /\bInstagram [0-9]/],
  ["messenger", /\bFBAN\/MessengerForiOS\b|\bFB_IAB\/Orca-Android\b|\bFBAN\/Orca\b/],
  ["facebook", /\bFBAN\/FBIOS\b|\bFB_IAB\/FB4A\b|\bFBAV\/|\bFBAN\//],
  ["tiktok", /\bmusical_ly\b|\btrill_[0-9]|\bBytedanceWebview\/|\bTikTok [0-9]/],
  ["linkedin", /\[LinkedInApp\]/],
  ["snapchat", /\bSnapchat\/[0-9]/],
  ["x", /\bTwitter for iPhone\b|\bTwitterAndroid\b|\bTwitter for Android\b/],
];

export interface InAppVisit {
  app: InAppBrowser;
  os: "ios" | "android";
}

/** The in-app browser a phone's user agent names, or null (a browser of its own, a desktop, a bot). */
export function inAppBrowser(userAgent: string): InAppVisit | null {
  const os = /\b(iPhone|iPad|iPod)\b/.test(userAgent) ? "ios" : /\bAndroid\b/.test(userAgent) ? "android" : null;
  if (os === null) return null;
  for (const [app, marker] of MARKERS) if (marker.test(userAgent)) return { app, os };
  return null;
}
