// The shared redirect answers (status, Cache-Control, X-Robots-Tag) and their settings.
import { describe, expect, it } from "vitest";
import { RedirectAnswers } from "../../src/redirect/answers.js";
import { NO_STORE } from "../../src/http/pages.js";
import { detailsConfigOf } from "../../src/config-details.js";
import { orphanPath, deviceClass } from "../../src/orphans/orphan-visits.js";
import { aliasOfPath } from "../../src/orphans/orphan-report.js";

describe("redirect answers", () => {
  const a = new RedirectAnswers(302, 60);
  it("one shared object per status and crawlable mark; null follows the default", () => {
    expect(a.of(null, false)).toBe(a.of(302, false));
    expect(a.of(301, true)).toBe(a.of(301, true));
    expect(new RedirectAnswers(308, 60).of(null, true).status).toBe(308);
  });
  it("headers: 301/308 cacheable for max-age, 302/307 no-store; noindex unless crawlable; fallback is the 302", () => {
    expect(a.of(301, false).headers).toEqual(["location", "", "cache-control", "private, max-age=60", "content-length", "0", "x-robots-tag", "noindex"]);
    expect(a.of(308, true).headers).toEqual(["location", "", "cache-control", "private, max-age=60", "content-length", "0"]);
    expect(a.of(307, false).cacheControl).toBe(NO_STORE);
    expect(a.of(302, true).cookieHeaders).toEqual(["location", "", "cache-control", NO_STORE, "content-length", "0", "set-cookie", ""]);
    expect(a.of(308, true).fallback).toBe(a.of(302, true));
    expect(a.of(302, false).fallback).toBe(a.of(302, false));
  });
});

describe("REDIRECT_* and ORPHAN_* settings", () => {
  it("defaults, values, refusals", () => {
    expect(detailsConfigOf({})).toEqual({ redirectStatus: 302, redirectMaxAge: 3600, orphanVisits: true, orphanPathsPerDay: 1000, orphanVisitsDays: 90 });
    expect(detailsConfigOf({ REDIRECT_STATUS: "308", REDIRECT_MAX_AGE: "0", ORPHAN_VISITS: "off" })).toMatchObject({ redirectStatus: 308, redirectMaxAge: 0, orphanVisits: false });
    expect(() => detailsConfigOf({ REDIRECT_STATUS: "303" })).toThrow('REDIRECT_STATUS: must be 301, 302, 307 or 308, got "303"');
    expect(() => detailsConfigOf({ REDIRECT_MAX_AGE: "-1" })).toThrow('REDIRECT_MAX_AGE: must be a whole number, got "-1"');
    expect(() => detailsConfigOf({ ORPHAN_PATHS_PER_DAY: "5" })).toThrow("ORPHAN_PATHS_PER_DAY: must be between 10 and 1000000, got 5");
    expect(() => detailsConfigOf({ ORPHAN_VISITS: "yes" })).toThrow('ORPHAN_VISITS: must be on or off, got "yes"');
  });
});

describe("orphan paths", () => {
  it("query dropped, control characters gone, 200 characters at most; aliases only where one could answer", () => {
    expect(orphanPath("/a?b=1")).toBe("/a");
    expect(orphanPath("/x\u0000y\u001f")).toBe("/xy");
    expect(orphanPath(`/${"a".repeat(500)}`)).toHaveLength(200);
    expect(aliasOfPath("/summer-sael")).toBe("summer-sael");
    for (const p of ["/wp-login.php", "/a/b", "/ab", "(other)", "/api"]) expect(aliasOfPath(p), p).toBeNull();
    expect(deviceClass("curl/8.0")).toBe("bot");
    expect(deviceClass("")).toBe("bot");
  });
});
