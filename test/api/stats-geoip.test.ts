// GEOIP_DB end to end: a generated .mmdb file, the client address from a trusted X-Forwarded-For, the country in the stats.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { buildMmdb } from "../helpers/mmdb-writer.js";
import { UA, visit } from "../helpers/visit.js";
import { linkNum } from "../helpers/links.js";

describe.each(ENGINES)("GeoIP countries on %s", (engine) => {
  let dir: string;
  let trusted: TestServer;
  let direct: TestServer;
  let a: ApiClient;
  let b: ApiClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "snip-geoip-"));
    const file = join(dir, "country.mmdb");
    writeFileSync(
      file,
      buildMmdb([
        { cidr: "203.0.113.0/24", data: { country: { iso_code: "DE" } } },
        { cidr: "198.51.100.0/24", data: { country: { iso_code: "BR" } } },
      ]),
    );
    trusted = await startTestServer({ engine, env: { GEOIP_DB: file, TRUST_PROXY: "true" } });
    direct = await startTestServer({ engine, env: { GEOIP_DB: file } });
    a = await signedInClient(trusted, "geo@example.com", "pro");
    b = await signedInClient(direct, "geo@example.com", "pro");
  });
  afterAll(async () => {
    await trusted?.close();
    await direct?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("looks the forwarded client address up in GEOIP_DB when TRUST_PROXY is set; the header still wins", async () => {
    const id = (await a.post("/api/links", { url: "https://example.com/", alias: "geo" })).body.link.id;
    for (const ip of ["203.0.113.7", "203.0.113.8", "198.51.100.1", "192.0.2.1"]) {
      expect(await visit(trusted.url, "/geo", { "user-agent": UA.windows, "x-forwarded-for": ip })).toBe(302);
    }
    expect(await visit(trusted.url, "/geo", { "user-agent": UA.windows, "x-forwarded-for": "203.0.113.9", "cf-ipcountry": "JP" })).toBe(302);
    await trusted.ctx.clicks.flush();
    const r = await a.get(`/api/links/${id}/stats`);
    // Each address is a visitor of its own.
    expect(r.body.countries).toEqual([
      { country: "DE", clicks: 2, visitors: 2 },
      { country: "BR", clicks: 1, visitors: 1 },
      { country: "JP", clicks: 1, visitors: 1 },
      { country: "unknown", clicks: 1, visitors: 1 },
    ]);
    const raw = JSON.stringify(await trusted.ctx.storage.db.selectFrom("clicks").selectAll().execute());
    expect(raw).not.toMatch(/203\.0\.113|198\.51\.100|192\.0\.2/);
  });

  it("without TRUST_PROXY a forwarded address is not believed (the socket address is loopback)", async () => {
    const id = (await b.post("/api/links", { url: "https://example.com/", alias: "geo" })).body.link.id;
    expect(await visit(direct.url, "/geo", { "user-agent": UA.windows, "x-forwarded-for": "203.0.113.7", "cf-ipcountry": "JP" })).toBe(302);
    direct.ctx.clicks.record({
      linkId: id,
      linkNum: await linkNum(direct, id),
      at: Date.now(),
      userAgent: UA.iphone,
      referer: "",
      ip: "198.51.100.3",
      country: null,
      counted: false,
      destination: null,
    });
    await direct.ctx.clicks.flush();
    const r = await b.get(`/api/links/${id}/stats`);
    expect(r.body.countries).toEqual([
      { country: "BR", clicks: 1, visitors: 1 },
      { country: "unknown", clicks: 1, visitors: 1 },
    ]);
  });
});
