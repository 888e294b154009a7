// Where clicks came from, finer: regions and cities from a GeoIP City database the test writes (through
// real redirects and a trusted X-Forwarded-For), referrer URLs without query or fragment, the short
// URL's UTM values; fresh (held back or uncommitted) and rolled up, over days and the last 24 hours,
// in link statistics, account analytics and its CSV.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { buildMmdb } from "../helpers/mmdb-writer.js";
import { UA, visit } from "../helpers/visit.js";
import { within } from "../helpers/wait.js";

/** A GeoLite2-City record: country, first subdivision (code and English name) and city. */
function cityRecord(country: string, sub: [string, string] | null, city: string | null) {
  return {
    country: { iso_code: country, names: { en: country } },
    ...(sub ? { subdivisions: [{ iso_code: sub[0], names: { en: sub[1], fr: "ignored" } }] } : {}),
    ...(city ? { city: { names: { en: city, de: "ignored" } } } : {}),
  };
}

const FINER_KEYS = ["regions", "cities", "referrer_urls", "utm_sources", "utm_mediums", "utm_campaigns", "utm_terms", "utm_contents"] as const;
const finer = (body: Record<string, unknown>) => Object.fromEntries(FINER_KEYS.map((k) => [k, body[k]]));

describe.each(ENGINES)("finer places, referrer URLs and UTM values on %s", (engine) => {
  let dir: string;
  let city: TestServer;
  let country: TestServer;
  let owner: ApiClient;
  let plain: ApiClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-finer-"));
    const cityFile = join(dir, "city.mmdb");
    writeFileSync(
      cityFile,
      buildMmdb(
        [
          { cidr: "203.0.113.0/25", data: cityRecord("FR", ["IDF", "Île-de-France"], "Paris") },
          { cidr: "203.0.113.128/25", data: cityRecord("FR", ["ARA", "Auvergne-Rhône-Alpes"], "Lyon") },
          { cidr: "198.51.100.0/24", data: cityRecord("SG", null, "Singapore") },
          { cidr: "192.0.2.0/24", data: cityRecord("DE", null, null) },
        ],
        { databaseType: "GeoLite2-City" },
      ),
    );
    const countryFile = join(dir, "country.mmdb");
    writeFileSync(countryFile, buildMmdb([{ cidr: "203.0.113.0/24", data: { country: { iso_code: "FR" } } }]));
    // Roll-ups held back for 10 minutes: the first reads add held-back (SQLite) or uncommitted (PostgreSQL) groups.
    city = await startTestServer({ engine, env: { GEOIP_DB: cityFile, TRUST_PROXY: "true", CLICK_ROLLUP_MS: "600000" } });
    country = await startTestServer({ engine, env: { GEOIP_DB: countryFile, TRUST_PROXY: "true" } });
    owner = await signedInClient(city, "finer@example.com", "business");
    plain = await signedInClient(country, "finer@example.com", "pro");
  });
  afterAll(async () => {
    await city?.close();
    await country?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts regions and cities from a City database, referrer URLs without query or fragment, and the short URL's UTM values", async () => {
    const id = (await owner.post("/api/links", { url: "https://example.com/landing", alias: "finer" })).body.link.id;
    const long = "x".repeat(500);
    const hits: Array<[string, Record<string, string>]> = [
      ["/finer", { "x-forwarded-for": "203.0.113.7", referer: "https://News.Example.org/a/b?q=secret#frag" }],
      ["/finer", { "x-forwarded-for": "203.0.113.8", referer: "https://news.example.org/a/b?other=1" }],
      ["/finer?utm_source=news&utm_campaign=spring&qr=1", { "x-forwarded-for": "203.0.113.200" }],
      [`/finer?utm_source=%3Cscript%3Ealert(1)%3C%2Fscript%3E&utm_medium=${long}&utm_term=a%0Ab&utm_content=`, { "x-forwarded-for": "198.51.100.4" }],
      // The proxy's country header says JP: the database's French city is not believed either.
      ["/finer", { "x-forwarded-for": "203.0.113.9", "cf-ipcountry": "JP" }],
      ["/finer", { "x-forwarded-for": "192.0.2.1", referer: "android-app://com.example/" }],
    ];
    for (const [path, headers] of hits) expect(await visit(city.url, path, { "user-agent": UA.windows, ...headers })).toBe(302);
    const expected = {
      regions: [
        { region: "FR-IDF", name: "Île-de-France", clicks: 2, visitors: 2 },
        { region: "FR-ARA", name: "Auvergne-Rhône-Alpes", clicks: 1, visitors: 1 },
      ],
      cities: [
        { city: "Paris", country: "FR", region: "FR-IDF", clicks: 2, visitors: 2 },
        { city: "Lyon", country: "FR", region: "FR-ARA", clicks: 1, visitors: 1 },
        { city: "Singapore", country: "SG", region: null, clicks: 1, visitors: 1 },
      ],
      referrer_urls: [{ referrer_url: "https://news.example.org/a/b", clicks: 2, visitors: 2 }],
      utm_sources: [
        { utm_source: "<script>alert(1)</script>", clicks: 1, visitors: 1 },
        { utm_source: "news", clicks: 1, visitors: 1 },
      ],
      utm_mediums: [{ utm_medium: "x".repeat(100), clicks: 1, visitors: 1 }],
      utm_campaigns: [{ utm_campaign: "spring", clicks: 1, visitors: 1 }],
      utm_terms: [{ utm_term: "ab", clicks: 1, visitors: 1 }],
      utm_contents: [],
    };
    // Fresh: before the roll-up (held back on SQLite; on PostgreSQL written, or not yet and added from memory).
    const fresh = await within(
      5000,
      async () => (await owner.get(`/api/links/${id}/stats`)).body,
      (b) => b.range_clicks === hits.length,
    );
    expect(finer(fresh)).toEqual(expected);
    expect(fresh.range_qr).toBe(1);
    expect((await owner.get(`/api/links/${id}/stats?range=24h`)).body).toMatchObject(expected);
    await city.ctx.clicks.flush();
    const rolled = (await owner.get(`/api/links/${id}/stats`)).body;
    expect(finer(rolled)).toEqual(expected);
    expect(rolled.countries).toEqual([
      { country: "FR", clicks: 3, visitors: 3 },
      { country: "DE", clicks: 1, visitors: 1 },
      { country: "JP", clicks: 1, visitors: 1 },
      { country: "SG", clicks: 1, visitors: 1 },
    ]);
    expect((await owner.get(`/api/links/${id}/stats?range=24h`)).body).toMatchObject(expected);
    expect((await owner.get(`/api/links/${id}/stats?range=12mo`)).body).toMatchObject(expected);
    const analytics = (await owner.get("/api/analytics?range=7d")).body;
    expect(finer(analytics)).toEqual(expected);
    // Nothing of the query strings but the UTM values, and no address, is stored with the clicks.
    const raw = await city.ctx.storage.db.selectFrom("clicks").select(["region", "city", "referrer_url", "utm"]).orderBy("id").execute();
    expect(JSON.stringify(raw)).not.toMatch(/secret|frag|other|qr=|203\.0\.113/);
    expect(raw.map((r) => r.utm).filter((u) => u !== null)).toEqual([
      "utm_source=news&utm_campaign=spring",
      `utm_source=%3Cscript%3Ealert(1)%3C%2Fscript%3E&utm_medium=${"x".repeat(100)}&utm_term=ab`,
    ]);
    // The CSV has a section per breakdown; cells are quoted and formulas neutralised as in every export.
    const res = await fetch(`${city.url}/api/analytics.csv?range=7d`, { headers: { cookie: owner.cookie ?? "" } });
    const csv = await res.text();
    expect(csv).toContain("region,name,clicks,visitors\r\nFR-IDF,Île-de-France,2,2\r\nFR-ARA,Auvergne-Rhône-Alpes,1,1\r\n");
    expect(csv).toContain("city,country,region,clicks,visitors\r\nParis,FR,FR-IDF,2,2\r\nLyon,FR,FR-ARA,1,1\r\nSingapore,SG,,1,1\r\n");
    expect(csv).toContain("utm_campaign,clicks,visitors\r\nspring,1,1\r\n");
    expect(csv).toContain("referrer_url,clicks,visitors\r\nhttps://news.example.org/a/b,2,2\r\n");
  });

  it("a formula-like UTM value is neutralised in the CSV", async () => {
    const id = (await owner.post("/api/links", { url: "https://example.com/", alias: "formula" })).body.link.id;
    expect(await visit(city.url, "/formula?utm_campaign=%3D1%2B2", { "user-agent": UA.iphone, "x-forwarded-for": "203.0.113.20" })).toBe(302);
    await city.ctx.clicks.flush();
    expect((await owner.get(`/api/links/${id}/stats`)).body.utm_campaigns).toEqual([{ utm_campaign: "=1+2", clicks: 1, visitors: 1 }]);
    const csv = await (await fetch(`${city.url}/api/analytics.csv?range=7d&link=${id}`, { headers: { cookie: owner.cookie ?? "" } })).text();
    expect(csv).toContain("utm_campaign,clicks,visitors\r\n'=1+2,1,1\r\n");
  });

  it("a Country database gives countries and no regions or cities", async () => {
    const id = (await plain.post("/api/links", { url: "https://example.com/", alias: "plain" })).body.link.id;
    expect(await visit(country.url, "/plain", { "user-agent": UA.windows, "x-forwarded-for": "203.0.113.7" })).toBe(302);
    await country.ctx.clicks.flush();
    const r = (await plain.get(`/api/links/${id}/stats`)).body;
    expect(r.countries).toEqual([{ country: "FR", clicks: 1, visitors: 1 }]);
    expect(finer(r)).toEqual({
      regions: [],
      cities: [],
      referrer_urls: [],
      utm_sources: [],
      utm_mediums: [],
      utm_campaigns: [],
      utm_terms: [],
      utm_contents: [],
    });
    const rows = await country.ctx.storage.db
      .selectFrom("click_breakdown")
      .select("dimension")
      .distinct()
      .where("link_id", "=", id)
      .orderBy("dimension")
      .execute();
    expect(rows.map((d) => d.dimension)).toEqual(["browser", "country", "device", "os", "referrer"]);
  });
});
