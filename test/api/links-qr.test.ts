// QR codes of short links: SVG by default, PNG with size bounds, 404 for unknown or deleted links;
// the image cache (same bytes), ETag revalidation and the per-address bound on drawing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";
import { ManualClock } from "../../src/shared/clock.js";

async function bytes(r: Response): Promise<Buffer> {
  return Buffer.from(await r.arrayBuffer());
}

describe.each(ENGINES)("QR codes on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  const clock = new ManualClock();
  beforeAll(async () => {
    // TRUST_PROXY: the tests below speak for several client addresses through X-Forwarded-For.
    server = await startTestServer({ engine, clock, env: { TRUST_PROXY: "127.0.0.1" } });
    owner = await signedInClient(server, "qr@example.com", "free");
    expect((await owner.post("/api/links", { url: "https://example.com/", alias: "qr-link" })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  const qr = (query: string, headers: Record<string, string> = {}, alias = "qr-link") =>
    fetch(`${server.url}/api/qr/${alias}${query ? `?${query}` : ""}`, { headers: { "x-forwarded-for": "198.51.100.1", ...headers } });

  it("SVG by default, public and briefly cacheable, with an ETag", async () => {
    const r = await qr("");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(r.headers.get("cache-control")).toBe("public, max-age=60");
    expect(r.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const svg = await r.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="256" height="256" viewBox="0 0 (\d+) \1" shape-rendering="crispEdges">/);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain('<path fill="#ffffff"');
    expect(svg).toContain('stroke="#000000"');
  });

  it("PNG of the requested size", async () => {
    const r = await qr("format=png&size=300");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    const buf = await bytes(r);
    expect([...buf.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(buf.subarray(12, 16).toString()).toBe("IHDR");
    expect(buf.readUInt32BE(16)).toBe(300); // width
    expect(buf.readUInt32BE(20)).toBe(300); // height
    expect(buf.subarray(-8, -4).toString()).toBe("IEND");
    const dflt = await bytes(await qr("format=png"));
    expect(dflt.readUInt32BE(16)).toBe(256);
    // Exactly the size asked for, also where the library's own arithmetic falls a pixel short (2042).
    for (const size of [2048, 2042, 999, 128]) {
      const img = await bytes(await qr(`format=png&size=${size}`));
      expect([img.readUInt32BE(16), img.readUInt32BE(20)], String(size)).toEqual([size, size]);
    }
  });

  it("a cached image is the same bytes; ETags differ by size and format; If-None-Match answers 304", async () => {
    const first = await qr("format=png&size=333");
    const again = await qr("format=png&size=333");
    const a = await bytes(first);
    expect((await bytes(again)).equals(a)).toBe(true);
    const etag = first.headers.get("etag") as string;
    expect(again.headers.get("etag")).toBe(etag);
    expect((await qr("format=png&size=334")).headers.get("etag")).not.toBe(etag);
    expect((await qr("format=svg&size=333")).headers.get("etag")).not.toBe(etag);
    // The same request from any address answers the same image.
    expect((await bytes(await qr("format=png&size=333", { "x-forwarded-for": "198.51.100.77" }))).equals(a)).toBe(true);

    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const r = await qr("format=png&size=333", { "if-none-match": inm });
      expect(r.status, inm).toBe(304);
      expect(r.headers.get("etag")).toBe(etag);
      expect(r.headers.get("cache-control")).toBe("public, max-age=60");
      expect((await bytes(r)).length).toBe(0);
    }
    expect((await qr("format=png&size=333", { "if-none-match": '"other"' })).status).toBe(200);
    // A link deleted since: 404, whatever the client holds.
    const { body } = await owner.post("/api/links", { url: "https://example.com/", alias: "qr-etag-gone" });
    const live = await qr("", {}, "qr-etag-gone");
    const liveTag = live.headers.get("etag") as string;
    await owner.delete(`/api/links/${body.link.id}`);
    expect((await qr("", { "if-none-match": liveTag }, "qr-etag-gone")).status).toBe(404);
  });

  it("concurrent requests for one new image get the same bytes", async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => qr("format=png&size=640", { "x-forwarded-for": "198.51.100.8" })));
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(200));
    const bodies = await Promise.all(all.map(bytes));
    for (const b of bodies) expect(b.equals(bodies[0] as Buffer)).toBe(true);
    expect((bodies[0] as Buffer).readUInt32BE(16)).toBe(640);
  });

  it("drawing is bounded per address: 429 rate_limited with Retry-After; cached images and other addresses still served", async () => {
    const me = { "x-forwarded-for": "203.0.113.50" };
    // 64 units at once: 64 SVGs of sizes never asked before (1 unit each), then the 65th is refused.
    for (let size = 1000; size < 1064; size++) expect((await qr(`size=${size}`, me)).status, String(size)).toBe(200);
    const refused = await qr("size=1064", me);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ status: "error", code: "rate_limited" });
    // A 2048-px PNG costs 16 units: 16 seconds away.
    const heavy = await qr("format=png&size=2047", me);
    expect(heavy.status).toBe(429);
    expect(heavy.headers.get("retry-after")).toBe("16");
    // Cached images cost nothing; another address has its own budget.
    expect((await qr("size=1000", me)).status).toBe(200);
    expect((await qr("size=1064", { "x-forwarded-for": "203.0.113.51" })).status).toBe(200);
    // One second later, one more unit (an address behind a proxy that is not trusted is the proxy's).
    clock.advance(1000);
    expect((await qr("size=1065", me)).status).toBe(200);
    expect((await qr("size=1066", me)).status).toBe(429);
  });

  it("size bounds and bad parameters: 400", async () => {
    for (const q of ["format=png&size=127", "format=png&size=2049", "format=gif", "size=abc", "colour=red"]) {
      const r = await qr(q);
      expect(r.status, q).toBe(400);
    }
    expect((await qr("format=png&size=2048")).status).toBe(200);
  });

  it("404 for unknown, reserved and deleted links; a domain that is no custom domain is the main host", async () => {
    expect((await fetch(`${server.url}/api/qr/unknown-one`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/qr/api`)).status).toBe(404);
    // As the redirect at that Host would answer (API.md, Custom domains): the main host's link.
    expect((await fetch(`${server.url}/api/qr/qr-link?domain=other.example`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/qr/unknown-one?domain=other.example`)).status).toBe(404);
    const host = new URL(server.config.origin).hostname;
    expect((await fetch(`${server.url}/api/qr/qr-link?domain=${host}`)).status).toBe(200);
    const { body } = await owner.post("/api/links", { url: "https://example.com/", alias: "qr-gone" });
    expect((await fetch(`${server.url}/api/qr/qr-gone`)).status).toBe(200);
    await owner.delete(`/api/links/${body.link.id}`);
    const r = await fetch(`${server.url}/api/qr/qr-gone`);
    expect(r.status).toBe(404);
    expect((await r.json()).code).toBe("not_found");
  });
});
