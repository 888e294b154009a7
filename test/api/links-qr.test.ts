// QR codes of short links: SVG by default, PNG with size bounds, 404 for unknown or deleted links.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { type ApiClient, signedInClient } from "../helpers/client.js";

describe.each(ENGINES)("QR codes on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ engine });
    owner = await signedInClient(server, "qr@example.com", "free");
    expect((await owner.post("/api/links", { url: "https://example.com/", alias: "qr-link" })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  it("SVG by default, public and briefly cacheable", async () => {
    const r = await fetch(`${server.url}/api/qr/qr-link`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(r.headers.get("cache-control")).toBe("public, max-age=60");
    expect(await r.text()).toContain("<svg");
  });

  it("PNG of the requested size", async () => {
    const r = await fetch(`${server.url}/api/qr/qr-link?format=png&size=300`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    const buf = Buffer.from(await r.arrayBuffer());
    expect(buf.subarray(1, 4).toString()).toBe("PNG");
    expect(buf.readUInt32BE(16)).toBe(300); // IHDR width
    const dflt = Buffer.from(await (await fetch(`${server.url}/api/qr/qr-link?format=png`)).arrayBuffer());
    expect(dflt.readUInt32BE(16)).toBe(256);
  });

  it("size bounds and bad parameters: 400", async () => {
    for (const q of ["format=png&size=127", "format=png&size=2049", "format=gif", "size=abc", "colour=red"]) {
      const r = await fetch(`${server.url}/api/qr/qr-link?${q}`);
      expect(r.status, q).toBe(400);
    }
    expect((await fetch(`${server.url}/api/qr/qr-link?format=png&size=2048`)).status).toBe(200);
  });

  it("404 for unknown, reserved and deleted links, and other domains", async () => {
    expect((await fetch(`${server.url}/api/qr/unknown-one`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/qr/api`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/qr/qr-link?domain=other.example`)).status).toBe(404);
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
