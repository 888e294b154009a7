// Firebase Dynamic Links' long links read into a link's fields (src/imports/sources/firebase.ts): every documented
// parameter mapped or reported, with long links shaped as Firebase's console and REST API built them.
import { describe, expect, it } from "vitest";
import { MAX_LONG_LINK, firebaseSource, readDynamicLink } from "../../src/imports/sources/firebase.js";

const enc = encodeURIComponent;

describe("readDynamicLink", () => {
  it("maps a full long link: destination, both apps, fallbacks, preview, UTM; reports the rest one by one", () => {
    const long =
      `https://shop.page.link/?link=${enc("https://shop.example/product/42?ref=poster#reviews")}` +
      `&apn=com.example.shop&afl=${enc("https://shop.example/android")}&amv=120` +
      `&ibi=com.example.Shop&ifl=${enc("https://shop.example/ios")}&ius=shopapp&ipfl=${enc("https://shop.example/ipad")}&ipbi=com.example.ShopHD` +
      `&isi=1234567890&imv=2.1&efr=1&ofl=${enc("https://shop.example/desktop")}` +
      `&st=${enc("Spring sale")}&sd=${enc("Up to 40 % off")}&si=${enc("https://shop.example/sale.png")}` +
      `&utm_source=poster&utm_medium=print&utm_campaign=spring&at=1l3v&ct=spring-poster&mt=8&pt=123456&d=1`;
    const r = readDynamicLink(long);
    expect(r).toEqual({
      url: "https://shop.example/desktop?utm_source=poster&utm_medium=print&utm_campaign=spring",
      ios_url: "https://shop.example/ios",
      android_url: "https://shop.example/android",
      app_ios_store_id: "1234567890",
      app_android_package: "com.example.shop",
      app_path: "/product/42?ref=poster#reviews",
      preview: { title: "Spring sale", description: "Up to 40 % off", image: "https://shop.example/sale.png" },
      notes: [
        "utm_source, utm_medium, utm_campaign added to the destination's query",
        "afl and apn both given: Android phones without the app go to apn's Play Store listing, and afl is kept as the link's Android address",
        "ifl and isi both given: iPhones without the app go to isi's App Store listing, and ifl is kept as the link's iOS address",
        "amv: the minimum Android version code is not carried: snip opens whatever version is installed",
        "ibi: the iOS bundle id belongs in the domain's app association (Domains, Apps: TEAMID.bundle.id), not on the link",
        "ius: the iOS custom URL scheme is not carried: snip opens apps through universal links",
        "ipfl: the iPad fallback link is not carried: iPads follow the link's iOS fields",
        "ipbi: the iPad bundle id is not carried: iPads follow the link's iOS fields",
        "imv: the minimum iOS app version is not carried: snip opens whatever version is installed",
        "efr: skipping the app preview page needs nothing: snip shows no app preview page",
        "at: the App Store affiliate token is not carried",
        "ct: the App Store campaign token is not carried",
        "mt: the App Store media type is not carried",
        "pt: the App Store provider token is not carried",
        "d: the debug flag is ignored",
      ],
    });
  });

  it("a link with the deep link only: the deep link is the destination, no app fields, nothing reported", () => {
    expect(readDynamicLink(`https://example.page.link/?link=${enc("https://example.com/welcome")}`)).toEqual({
      url: "https://example.com/welcome",
      ios_url: null,
      android_url: null,
      app_ios_store_id: null,
      app_android_package: null,
      app_path: null,
      preview: null,
      notes: [],
    });
  });

  it("an Android-only link keeps the deep link's path for the app; a UTM already in the destination is not doubled", () => {
    const r = readDynamicLink(`https://a.page.link/?link=${enc("https://a.example/x?utm_source=site")}&apn=com.a.app&utm_source=ad&utm_content=banner`);
    expect(r).toMatchObject({
      url: "https://a.example/x?utm_source=site&utm_content=banner",
      app_android_package: "com.a.app",
      app_ios_store_id: null,
      app_path: "/x?utm_source=site",
      notes: ["utm_source is already in the destination's query: the long link's value is not added", "utm_content added to the destination's query"],
    });
  });

  it("reports what cannot be carried: a store id that is not digits, a fallback that is not an address, a repeated or unknown parameter", () => {
    const r = readDynamicLink(`https://a.page.link/?link=${enc("https://a.example/")}&isi=id123&afl=javascript:alert(1)&ofl=ftp://x&st=One&st=Two&colour=red`);
    expect(r).toMatchObject({
      url: "https://a.example/",
      app_ios_store_id: null,
      android_url: null,
      app_path: null,
      preview: { title: "One", description: null, image: null },
    });
    expect(typeof r === "string" ? [] : r.notes).toEqual([
      "ofl is not an http or https address: the deep link is the destination",
      'isi "id123" is not an App Store id (digits): not carried',
      "afl is not an http or https address: not carried",
      "st was given 2 times: the first is used",
      "colour is not a Dynamic Link parameter: not carried",
    ]);
  });

  it("refuses what cannot be a link, saying why", () => {
    expect(readDynamicLink("https://a.page.link/?apn=com.a")).toBe("the long link has no link= parameter (the deep link, which Firebase requires)");
    expect(readDynamicLink(`https://a.page.link/?link=${enc("javascript:alert(1)")}`)).toBe("the long link's link= parameter is not an http or https address");
    expect(readDynamicLink("not a link")).toBe("the long link is not an http or https address");
    expect(readDynamicLink(`https://a.page.link/?link=${enc("https://a.example/")}&x=${"a".repeat(MAX_LONG_LINK)}`)).toBe(
      `the long link is longer than ${MAX_LONG_LINK} characters`,
    );
  });
});

describe("firebaseSource", () => {
  it("reads the console's CSV: the short path as the alias on its host, the name as the title; bad lines refused alone", async () => {
    const file = [
      "Link name,Short link,Long link,Created",
      `Poster,https://go.shop.example/spring,"https://shop.page.link/?link=${enc("https://shop.example/s")}&apn=com.shop",2021-03-01`,
      `,https://shop.page.link/Xy12,"https://shop.page.link/?link=${enc("https://shop.example/t")}",2021-03-02`,
      "Broken,https://shop.page.link/zz,https://shop.page.link/?apn=com.shop,2021-03-03",
      `No path,https://shop.page.link/,"https://shop.page.link/?link=${enc("https://shop.example/u")}",2021-03-04`,
    ].join("\n");
    const page = await firebaseSource({ file }).page(null);
    expect(page.total).toBe(4);
    expect(page.next).toBeNull();
    expect(page.links[0]).toMatchObject({
      source_id: "https://go.shop.example/spring",
      domain: "go.shop.example",
      alias: "spring",
      title: "Poster",
      url: "https://shop.example/s",
      app_android_package: "com.shop",
      app_path: "/s",
    });
    expect(page.links[1]).toMatchObject({ domain: "shop.page.link", alias: "Xy12", title: null, url: "https://shop.example/t" });
    expect(page.links[2]).toEqual({
      source_id: "https://shop.page.link/zz",
      url: "",
      refused: { code: "invalid_request", field: "long_link", message: "the long link has no link= parameter (the deep link, which Firebase requires)" },
    });
    expect(page.links[3]).toMatchObject({ refused: { field: "short_link", message: "the short link has no path to keep as the alias" } });
  });

  it("refuses a file without the two columns, naming them", async () => {
    await expect(firebaseSource({ file: "url,alias\nhttps://a.example/,a" }).page(null)).rejects.toThrow(
      'the header row needs a short link column ("Short link") and a long link column ("Long link", longDynamicLink)',
    );
    await expect(firebaseSource({ file: "" }).page(null)).rejects.toThrow("the file needs a header row");
  });

  it("reads the REST API's names (shortLink, longDynamicLink) and pages of 500", async () => {
    const rows = Array.from({ length: 501 }, (_, i) => `https://s.page.link/k${i},https://s.page.link/?link=${enc(`https://s.example/${i}`)}`);
    const source = firebaseSource({ file: ["shortLink,longDynamicLink", ...rows].join("\n") });
    const first = await source.page(null);
    expect(first.links).toHaveLength(500);
    expect(first.next).toBe("500");
    const second = await source.page(first.next);
    expect(second.links.map((l) => [l.alias, l.url])).toEqual([["k500", "https://s.example/500"]]);
    expect(second.next).toBeNull();
  });
});
