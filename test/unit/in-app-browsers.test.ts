// The in-app browser table (src/deeplinks/in-app-browsers.ts) against user agents captured from each app's web
// view on iOS and on Android, and browsers, desktops and crawlers that are none.
import { describe, expect, it } from "vitest";
import { inAppBrowser } from "../../src/deeplinks/in-app-browsers.js";
import { IN_APP } from "../helpers/in-app-agents.js";

const NOT_IN_APP: Array<[string, string]> = [
  [
    "Safari on an iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1",
  ],
  [
    "Chrome on an iPhone",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0.6045.169 Mobile/15E148 Safari/604.1",
  ],
  ["Chrome on Android", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36"],
  [
    "Samsung Internet",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
  ],
  ["Chrome on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36"],
  ["Facebook's crawler", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
  ["X's crawler", "Twitterbot/1.0"],
  ["LinkedIn's crawler", "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"],
  ["nothing", ""],
];

describe("in-app browsers", () => {
  it.each(IN_APP)("%s on %s", (app, os, ua) => {
    expect(inAppBrowser(ua)).toEqual({ app, os });
  });

  it("knows each of the seven apps on both systems", () => {
    expect(new Set(IN_APP.map(([app, os]) => `${app}/${os}`)).size).toBe(14);
  });

  it.each(NOT_IN_APP)("%s is none", (_what, ua) => {
    expect(inAppBrowser(ua)).toBeNull();
  });
});
