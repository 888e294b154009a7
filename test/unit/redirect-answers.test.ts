// The shared redirect answers (status, Cache-Control, X-Robots-Tag) and their settings.
import { describe, expect, it } from "vitest";
import { RedirectAnswers } from "../../src/redirect/answers.js";
import { NO_STORE } from "../../src/http/pages.js";
import { detailsConfigOf } from "../../src/config-details.js";
import { orphanPath, deviceClass } from "../../src/orphans/orphan-visits.js";
import { aliasOfPath } from "../../src/orphans/orphan-report.js";
import { mapLink } from "../../src/imports/mapping.js";
import type { UserRow } from "../../src/storage/schema.js";

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
    expect(detailsConfigOf({ REDIRECT_STATUS: "308", REDIRECT_MAX_AGE: "0", ORPHAN_VISITS: "off" })).toMatchObject({
      redirectStatus: 308,
      redirectMaxAge: 0,
      orphanVisits: false,
    });
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

describe("Shlink's validSince and crawlable on import", () => {
  const owner = (plan: string) => ({ plan }) as unknown as UserRow;
  const target = (plan: string) => ({ owner: owner(plan), domains: new Set<string>(), mainHost: "snip.example" });
  const now = Date.UTC(2026, 10, 28);
  it("a start still ahead becomes starts_at on Pro; dropped with a note on Free; a past one is not carried", () => {
    const src = { source_id: "/a", url: "https://example.com/a", alias: "a", valid_since: now + 86_400_000, crawlable: true };
    const pro = mapLink(src, target("pro"), now);
    expect([pro.input.starts_at, pro.input.crawlable, pro.notes]).toEqual(["2026-11-29T00:00:00.000Z", true, []]);
    const free = mapLink(src, target("free"), now);
    expect([free.input.starts_at, free.notes]).toEqual([undefined, ["start date 2026-11-29 dropped: a start date needs the Pro plan; the link works now"]]);
    expect(mapLink({ ...src, valid_since: now - 1, crawlable: false }, target("pro"), now).input).toEqual({
      url: "https://example.com/a",
      alias: "a",
      domain: null,
    });
  });
});
