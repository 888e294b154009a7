// Click dimensions: bots (crawlers, curl, empty agents), devices, and countries from a trusted header or a GeoIP file.
import { describe, expect, it } from "vitest";
import { Reader, type CountryResponse } from "maxmind";
import { CountryResolver, describeUserAgent, plainIp, referrerHost } from "../../src/clicks/describe.js";
import { buildMmdb } from "../helpers/mmdb-writer.js";
import { UA } from "../helpers/visit.js";

describe("user agents", () => {
  it("flags crawlers, curl and empty agents as bots", () => {
    for (const ua of [UA.googlebot, UA.curl, ""]) expect(describeUserAgent(ua), ua).toMatchObject({ isBot: true, device: "bot" });
    for (const ua of [UA.iphone, UA.android, UA.windows, UA.ipad]) expect(describeUserAgent(ua).isBot, ua).toBe(false);
  });
  it("tells devices, OS and browsers apart", () => {
    expect(describeUserAgent(UA.iphone)).toEqual({ device: "mobile", os: "iOS", browser: "Mobile Safari", isBot: false });
    expect(describeUserAgent(UA.ipad).device).toBe("tablet");
    expect(describeUserAgent(UA.windows)).toEqual({ device: "desktop", os: "Windows", browser: "Chrome", isBot: false });
  });
  it("stores no control characters", () => {
    const d = describeUserAgent("Mozilla/5.0 (Windows NT 10.0) Firefox\u0000\u0007/1.0");
    expect(JSON.stringify(d)).not.toMatch(/\\u000/);
  });
});

describe("referrers", () => {
  it("keeps the host only", () => {
    expect(referrerHost("https://News.Example.org/a?b=c")).toBe("news.example.org");
    expect(referrerHost("")).toBe("direct");
    expect(referrerHost("not a url")).toBe("unknown");
  });
});

describe("countries", () => {
  const mmdb = (ipVersion: 4 | 6) =>
    new Reader<CountryResponse>(
      buildMmdb(
        [
          { cidr: "203.0.113.0/24", data: { country: { iso_code: "DE", names: { en: "Germany" } } } },
          ...(ipVersion === 6 ? [{ cidr: "2001:db8::/32", data: { country: { iso_code: "JP" } } }] : []),
        ],
        { ipVersion },
      ),
    );

  it("reads a generated GeoIP2-Country file (IPv6 tree with the IPv4 space at ::/96, and an IPv4 tree)", () => {
    for (const v of [6, 4] as const) {
      const r = new CountryResolver(mmdb(v));
      expect(r.resolve(null, "203.0.113.9")).toBe("DE");
      expect(r.resolve(null, "::ffff:203.0.113.9")).toBe("DE");
      expect(r.resolve(null, "198.51.100.1")).toBe("unknown");
      expect(r.resolve(null, "not-an-ip")).toBe("unknown");
    }
    expect(new CountryResolver(mmdb(6)).resolve(null, "2001:db8::1")).toBe("JP");
    expect(new CountryResolver(mmdb(4)).resolve(null, "2001:db8::1")).toBe("unknown");
  });

  it("a trusted header wins over the file; Cloudflare's XX/T1 and junk fall through", () => {
    const r = new CountryResolver(mmdb(6));
    expect(r.resolve("fr", "203.0.113.9")).toBe("FR");
    expect(r.resolve("XX", "203.0.113.9")).toBe("DE");
    expect(r.resolve("T1", "198.51.100.1")).toBe("unknown");
    expect(r.resolve("<b>", "198.51.100.1")).toBe("unknown");
    expect(new CountryResolver(null).resolve(null, "203.0.113.9")).toBe("unknown");
  });

  it("plainIp unwraps IPv4-mapped IPv6 only", () => {
    expect(plainIp("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(plainIp("::1")).toBe("::1");
  });
});

describe("the user-agent cache", () => {
  it("keeps an agent in use through more than 10,000 others, and describes a forgotten one again alike", () => {
    const hot = describeUserAgent(UA.windows);
    const cold = describeUserAgent(UA.iphone);
    for (let i = 0; i < 12_000; i++) {
      describeUserAgent(`Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${i}.0 Safari/537.36`);
      if (i % 1000 === 0) expect(describeUserAgent(UA.windows)).toBe(hot);
    }
    // The same object: never parsed again while in use.
    expect(describeUserAgent(UA.windows)).toBe(hot);
    // Untouched through two generations: parsed again, to the same description.
    const again = describeUserAgent(UA.iphone);
    expect(again).not.toBe(cold);
    expect(again).toEqual(cold);
  });
});
