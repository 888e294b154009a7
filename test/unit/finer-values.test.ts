// Parsing behind the finer breakdowns: UTM values of a visit's query, referrer URLs, City database places.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import maxmind, { type CityResponse } from "maxmind";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UTM_VALUE_MAX, utmOf, utmValues } from "../../src/clicks/utm-values.js";
import { CountryResolver, cityParts, referrerUrl, regionParts } from "../../src/clicks/describe.js";
import { buildMmdb } from "../helpers/mmdb-writer.js";

describe("utmOf", () => {
  it("keeps utm_source, utm_medium, utm_campaign, utm_term and utm_content, in that order, first of each", () => {
    expect(utmOf("utm_campaign=spring&utm_source=news&utm_source=other&ref=x&utm_content=b%20c&utm_term=k+w&utm_medium=email")).toBe(
      "utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=k%20w&utm_content=b%20c",
    );
    expect(utmOf("UTM_Source=News&utm_source=News")).toBe("utm_source=News");
  });

  it("is null for queries without a UTM value", () => {
    for (const q of ["", "a=1", "utm_source=", "utm_source", "utm_sourcex=1&utm_foo=2", "x=utm_source%3D1", "utm_term=%20%0A", "UTM_SOURCE=a"])
      expect(utmOf(q)).toBeNull();
  });

  it("bounds values, drops control characters, survives bad escapes and cut surrogate pairs", () => {
    expect(utmOf(`utm_source=${"a".repeat(500)}`)).toBe(`utm_source=${"a".repeat(UTM_VALUE_MAX)}`);
    expect(utmOf("utm_source=a%00b%1Fc%7F")).toBe("utm_source=abc");
    expect(utmOf("utm_source=%E0%A4%A&utm_medium=%ZZ")).toBe("utm_source=%25E0%25A4%25A&utm_medium=%25ZZ");
    // 99 characters and an emoji (two UTF-16 units): the cut leaves half of it, which is dropped.
    const v = utmOf(`utm_source=${"a".repeat(99)}${encodeURIComponent("😀")}`)!;
    expect(utmValues(v).utm_source).toBe("a".repeat(99));
  });

  it("round-trips through utmValues, & and = included", () => {
    const v = utmOf("utm_source=a%26b%3Dc&utm_campaign=%3Cscript%3E")!;
    expect(v).toBe("utm_source=a%26b%3Dc&utm_campaign=%3Cscript%3E");
    expect(utmValues(v)).toEqual({ utm_source: "a&b=c", utm_campaign: "<script>" });
    expect(utmValues("utm_source=%E0&utm_medium=x&other=1")).toEqual({ utm_medium: "x" });
  });
});

describe("referrerUrl", () => {
  it("keeps scheme, lowercase host and path; drops query, fragment and credentials", () => {
    expect(referrerUrl("https://News.Example.ORG/A/b?q=secret#frag")).toBe("https://news.example.org/A/b");
    expect(referrerUrl("http://user:pw@example.com:8080")).toBe("http://example.com:8080/");
    expect(referrerUrl(`https://example.com/${"p".repeat(400)}`)).toBe(`https://example.com/${"p".repeat(400)}`.slice(0, 300));
    expect(referrerUrl("https://example.com/a b<c>")).toBe("https://example.com/a%20b%3Cc%3E");
  });

  it("is null without a referrer or for what is not an http(s) URL", () => {
    for (const r of ["", "not a url", "android-app://com.example/", "javascript:alert(1)", "file:///etc/passwd"]) expect(referrerUrl(r)).toBeNull();
  });
});

describe("CountryResolver.place", () => {
  let dir: string;
  let resolver: CountryResolver;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-place-"));
    const file = join(dir, "city.mmdb");
    writeFileSync(
      file,
      buildMmdb(
        [
          {
            cidr: "203.0.113.0/24",
            data: {
              country: { iso_code: "FR" },
              subdivisions: [{ iso_code: "IDF", names: { en: "Île-de-France" } }, { iso_code: "75" }],
              city: { names: { en: "Paris" } },
            },
          },
          { cidr: "198.51.100.0/24", data: { country: { iso_code: "US" }, subdivisions: [{ iso_code: "il" }], city: { names: { en: "Spring|field\u0000" } } } },
          {
            cidr: "192.0.2.0/24",
            data: { country: { iso_code: "SG" }, subdivisions: [{ iso_code: "TOOLONG", names: { en: "x" } }], city: { names: { en: "Singapore" } } },
          },
          { cidr: "100.64.0.0/24", data: { country: { iso_code: "DE" } } },
        ],
        { databaseType: "GeoLite2-City" },
      ),
    );
    resolver = new CountryResolver(await maxmind.open<CityResponse>(file));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gives region and city from a City record, the first subdivision, names cleaned", () => {
    expect(resolver.place(null, "203.0.113.5")).toEqual({ country: "FR", region: "FR-IDF|Île-de-France", city: "FR-IDF|Paris" });
    expect(resolver.place(null, "::ffff:203.0.113.5")).toEqual({ country: "FR", region: "FR-IDF|Île-de-France", city: "FR-IDF|Paris" });
    expect(resolver.place(null, "198.51.100.1")).toEqual({ country: "US", region: "US-IL|US-IL", city: "US-IL|Springfield" });
    expect(resolver.place(null, "192.0.2.1")).toEqual({ country: "SG", region: null, city: "SG|Singapore" });
    expect(resolver.place(null, "100.64.0.1")).toEqual({ country: "DE", region: null, city: null });
    expect(resolver.place(null, "10.0.0.1")).toEqual({ country: "unknown", region: null, city: null });
    expect(resolver.place(null, "not an ip")).toEqual({ country: "unknown", region: null, city: null });
  });

  it("the proxy's country header wins, and a record of another country gives no region or city", () => {
    expect(resolver.place("JP", "203.0.113.5")).toEqual({ country: "JP", region: null, city: null });
    expect(resolver.place("fr", "203.0.113.5")).toEqual({ country: "FR", region: "FR-IDF|Île-de-France", city: "FR-IDF|Paris" });
    expect(resolver.resolve("XX", "203.0.113.5")).toBe("FR");
  });

  it("values split back into their parts", () => {
    expect(regionParts("FR-IDF|Île-de-France")).toEqual({ region: "FR-IDF", name: "Île-de-France" });
    expect(cityParts("FR-IDF|Paris")).toEqual({ city: "Paris", country: "FR", region: "FR-IDF" });
    expect(cityParts("SG|Singapore")).toEqual({ city: "Singapore", country: "SG", region: null });
  });
});
