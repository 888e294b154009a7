// The redirect rules' matcher and the split (src/redirect/targeting.ts): every condition, language ranges,
// time bounds, precedence of rules, device destinations and split, and a split's shares and stickiness.
import { describe, expect, it } from "vitest";
import { acceptedLanguages, compileTargeting, matchRule, pickVariant, targetOf, visitorBucket, type VisitFacts } from "../../src/redirect/targeting.js";
import type { Rule, Variant } from "../../src/contract/targeting.js";
import { deviceDestination } from "../../src/redirect/device.js";

const CHROME_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PIXEL = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const NOW = Date.parse("2026-06-15T12:00:00Z");

function facts(over: Partial<Omit<VisitFacts, "country">> & { country?: string | null } = {}): VisitFacts {
  const { country = null, ...rest } = over;
  return { userAgent: CHROME_WIN, referer: "", query: "", acceptLanguage: "", cookie: "", ip: "203.0.113.9", at: NOW, country: () => country, ...rest };
}

/** The 1-based number of the rule that holds, or 0. */
function which(rules: Rule["if"][], f: VisitFacts): number {
  const t = compileTargeting(
    rules.map((c, i) => ({ if: c, url: `https://example.com/${i + 1}` })),
    [],
    1,
  )!;
  return matchRule(t, f) + 1;
}

describe("redirect rules", () => {
  it("country: alternatives, upper case, unknown country never holds", () => {
    expect(which([{ country: ["FR", "BE"] }], facts({ country: "BE" }))).toBe(1);
    expect(which([{ country: ["FR", "BE"] }], facts({ country: "DE" }))).toBe(0);
    expect(which([{ country: ["FR"] }], facts({ country: null }))).toBe(0);
  });

  it("language: the best Accept-Language entry by q; fr covers fr-BE, fr-BE not fr", () => {
    expect(acceptedLanguages("en;q=0.5, fr-BE, de;q=0.9, *;q=0.1, es;q=0")).toEqual(["fr-be", "de", "en"]);
    expect(which([{ language: ["fr"] }], facts({ acceptLanguage: "fr-BE,fr;q=0.9,en;q=0.8" }))).toBe(1);
    expect(which([{ language: ["fr-be"] }], facts({ acceptLanguage: "fr;q=1" }))).toBe(0);
    expect(which([{ language: ["fr"] }], facts({ acceptLanguage: "en-US,fr;q=0.9" }))).toBe(0);
    expect(which([{ language: ["fr"] }], facts({ acceptLanguage: "fra" }))).toBe(0);
    expect(which([{ language: ["de"] }], facts({ acceptLanguage: "en;q=0.3, de;q=0.7" }))).toBe(1);
    expect(which([{ language: ["en"] }], facts({ acceptLanguage: "" }))).toBe(0);
  });

  it("device: ios, android, mobile, tablet, desktop, bot", () => {
    const dev = (ua: string) =>
      ["ios", "android", "mobile", "tablet", "desktop", "bot"].filter((d) => which([{ device: [d as "ios"] }], facts({ userAgent: ua })) === 1);
    expect(dev(IPHONE)).toEqual(["ios", "mobile"]);
    expect(dev(IPAD)).toEqual(["ios", "tablet"]);
    expect(dev(PIXEL)).toEqual(["android", "mobile"]);
    expect(dev(CHROME_WIN)).toEqual(["desktop"]);
    expect(dev(GOOGLEBOT)).toEqual(["bot"]);
  });

  it("os and browser, ignoring case", () => {
    expect(which([{ os: ["linux"] }], facts({ userAgent: FIREFOX_LINUX }))).toBe(1);
    expect(which([{ os: ["Windows"] }], facts({ userAgent: FIREFOX_LINUX }))).toBe(0);
    expect(which([{ browser: ["FIREFOX"] }], facts({ userAgent: FIREFOX_LINUX }))).toBe(1);
    expect(which([{ browser: ["Chrome"] }], facts({ userAgent: FIREFOX_LINUX }))).toBe(0);
  });

  it("query: exact values, * for present, all names must hold", () => {
    const rule = { query: { utm_source: "news", ref: "*" } };
    expect(which([rule], facts({ query: "utm_source=news&ref=" }))).toBe(1);
    expect(which([rule], facts({ query: "utm_source=news&ref=abc" }))).toBe(1);
    expect(which([rule], facts({ query: "utm_source=News&ref=abc" }))).toBe(0);
    expect(which([rule], facts({ query: "utm_source=news" }))).toBe(0);
    expect(which([{ query: { q: "a b" } }], facts({ query: "q=a%20b" }))).toBe(1);
  });

  it("referrer host: www. ignored, subdomains covered, direct visits never", () => {
    expect(which([{ referrer_host: ["example.com"] }], facts({ referer: "https://www.example.com/page" }))).toBe(1);
    expect(which([{ referrer_host: ["example.com"] }], facts({ referer: "https://news.example.com/" }))).toBe(1);
    expect(which([{ referrer_host: ["example.com"] }], facts({ referer: "https://notexample.com/" }))).toBe(0);
    expect(which([{ referrer_host: ["example.com"] }], facts({ referer: "" }))).toBe(0);
  });

  it("after and before: from `after` included, until `before` excluded", () => {
    const window = { after: "2026-06-15T12:00:00.000Z", before: "2026-06-16T00:00:00.000Z" };
    expect(which([window], facts({ at: NOW }))).toBe(1);
    expect(which([window], facts({ at: NOW - 1 }))).toBe(0);
    expect(which([window], facts({ at: Date.parse(window.before) - 1 }))).toBe(1);
    expect(which([window], facts({ at: Date.parse(window.before) }))).toBe(0);
  });

  it("every condition of a rule must hold; the first rule that holds wins", () => {
    const rules = [{ country: ["FR"], device: ["ios" as const] }, { country: ["FR"] }, { device: ["ios" as const] }];
    expect(which(rules, facts({ country: "FR", userAgent: IPHONE }))).toBe(1);
    expect(which(rules, facts({ country: "FR", userAgent: CHROME_WIN }))).toBe(2);
    expect(which(rules, facts({ country: "US", userAgent: IPHONE }))).toBe(3);
    expect(which(rules, facts({ country: "US", userAgent: CHROME_WIN }))).toBe(0);
  });

  it("the country is asked only when a rule before it has not decided", () => {
    let asked = 0;
    const t = compileTargeting(
      [
        { if: { device: ["ios"] }, url: "https://example.com/a" },
        { if: { country: ["FR"] }, url: "https://example.com/b" },
      ],
      [],
      1,
    )!;
    const f = { ...facts({ userAgent: IPHONE }), country: () => (asked++, "FR") };
    expect(matchRule(t, f)).toBe(0);
    expect(asked).toBe(0);
    expect(matchRule(t, { ...f, userAgent: CHROME_WIN })).toBe(1);
    expect(asked).toBe(1);
  });
});

describe("order of destinations: rules, then device destinations, then the split, then url", () => {
  const link = { ios_url: "https://example.com/ios", android_url: null };
  const rules: Rule[] = [{ if: { country: ["FR"] }, url: "https://example.com/fr" }];
  const split: Variant[] = [
    { url: "https://example.com/a", weight: 50 },
    { url: "https://example.com/b", weight: 50 },
  ];
  const go = (f: VisitFacts) => targetOf(compileTargeting(rules, split, 7)!, 7, f, deviceDestination(link, f.userAgent), "/promo", true);

  it("a rule beats the iOS destination, which beats the split", () => {
    expect(go(facts({ country: "FR", userAgent: IPHONE }))).toEqual({ url: "https://example.com/fr", code: "rule:1", setCookie: null });
    expect(go(facts({ country: "US", userAgent: IPHONE }))).toEqual({ url: "https://example.com/ios", code: "ios", setCookie: null });
    const d = go(facts({ country: "US" }))!;
    expect(d.code).toMatch(/^variant:[12]$/);
    expect(d.url).toBe(d.code === "variant:1" ? "https://example.com/a" : "https://example.com/b");
    expect(d.setCookie).toBe(`snip_v7=${d.code!.slice(-1)}; Max-Age=2592000; Path=/promo; HttpOnly; SameSite=Lax; Secure`);
  });

  it("no rules and no split: nothing to compile", () => {
    expect(compileTargeting([], [], 1)).toBeNull();
  });
});

describe("split", () => {
  const split = (weights: number[]) =>
    compileTargeting(
      [],
      weights.map((weight, i) => ({ url: `https://example.com/${i}`, weight })),
      3,
    )!.split!;

  it("shares converge to the weights over many visitors (property: 5 weightings, 20,000 visitors each)", () => {
    for (const weights of [
      [50, 50],
      [10, 90],
      [25, 25, 50],
      [1, 99],
      [40, 30, 20, 10],
    ]) {
      const s = split(weights);
      const counts = weights.map(() => 0);
      for (let i = 0; i < 20_000; i++) {
        const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
        counts[pickVariant(s, 3, { cookie: "", ip, userAgent: i % 3 === 0 ? IPHONE : CHROME_WIN }).index]!++;
      }
      counts.forEach((n, k) => expect(Math.abs(n / 20_000 - weights[k]! / 100), `${weights} variant ${k + 1}: ${n}`).toBeLessThan(0.015));
    }
  });

  it("a visitor keeps their variant: the same visitor hashes alike, and a cookie wins over the hash", () => {
    const s = split([50, 50]);
    const first = pickVariant(s, 3, { cookie: "", ip: "198.51.100.4", userAgent: CHROME_WIN });
    for (let i = 0; i < 10; i++) expect(pickVariant(s, 3, { cookie: "", ip: "198.51.100.4", userAgent: CHROME_WIN })).toEqual(first);
    expect(first.kept).toBe(false);
    const other = 2 - first.index;
    expect(pickVariant(s, 3, { cookie: `a=1; snip_v3=${other}; b=2`, ip: "198.51.100.4", userAgent: CHROME_WIN })).toEqual({ index: other - 1, kept: true });
    // Another link's cookie, or a variant the split no longer has, is not a kept variant.
    expect(pickVariant(s, 3, { cookie: `xsnip_v3=2; snip_v33=2`, ip: "198.51.100.4", userAgent: CHROME_WIN }).kept).toBe(false);
    expect(pickVariant(s, 3, { cookie: `snip_v3=3`, ip: "198.51.100.4", userAgent: CHROME_WIN }).kept).toBe(false);
  });

  it("visitor buckets differ between links (a visitor is not in variant 1 of every test)", () => {
    const buckets = new Set(Array.from({ length: 20 }, (_, n) => visitorBucket(n, "198.51.100.4", CHROME_WIN)));
    expect(buckets.size).toBeGreaterThan(10);
  });
});
