// Profile picture: content-checked PNG/JPEG/WebP up to 2 MiB; name changes; hostile input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deflateSync } from "node:zlib";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient, type ApiClient } from "../helpers/client.js";

/** A real 1x1 PNG. */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    let c = ~0 >>> 0;
    for (const b of body) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    }
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(~c >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

let server: TestServer;
let c: ApiClient;
beforeAll(async () => {
  server = await startTestServer();
  c = await signedInClient(server, "pic@example.com");
});
afterAll(async () => server?.close());

describe("profile picture", () => {
  it("accepts a real PNG and serves it back to its owner only", async () => {
    const img = png();
    const r = await c.put("/api/profile/picture", img, { "content-type": "image/png" });
    expect(r.status).toBe(200);
    expect(r.body.user.picture_url).toMatch(/^\/api\/profile\/picture\?v=\d+$/);
    const got = await fetch(server.url + r.body.user.picture_url, { headers: { cookie: c.cookie! } });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await got.arrayBuffer()).equals(img)).toBe(true);
    expect((await fetch(server.url + r.body.user.picture_url)).status).toBe(401);
  });

  it("refuses content that is not what it claims", async () => {
    const html = Buffer.from("<svg onload=alert(1)></svg>");
    const r = await c.put("/api/profile/picture", html, { "content-type": "image/png" });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe("picture");
    const jpegNamedPng = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100)]);
    expect((await c.put("/api/profile/picture", jpegNamedPng, { "content-type": "image/png" })).status).toBe(400);
    expect((await c.put("/api/profile/picture", jpegNamedPng, { "content-type": "image/jpeg" })).status).toBe(200);
  });

  it("refuses other media types and pictures over 2 MiB", async () => {
    const svg = await c.put("/api/profile/picture", Buffer.from("<svg/>"), { "content-type": "image/svg+xml" });
    expect(svg.status).toBe(400);
    expect(svg.body.code).toBe("invalid_request");
    const big = Buffer.concat([png(), Buffer.alloc(2 * 1024 * 1024)]);
    const r = await c.put("/api/profile/picture", big, { "content-type": "image/png" });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("payload_too_large");
  });

  it("keeps the name short and free of control characters", async () => {
    expect((await c.patch("/api/profile", { name: "Grace Hopper" })).body.user.name).toBe("Grace Hopper");
    expect((await c.patch("/api/profile", { name: "x".repeat(101) })).status).toBe(400);
    expect((await c.patch("/api/profile", { name: "a\u0000b" })).status).toBe(400);
    expect((await c.get("/api/profile")).body.user.name).toBe("Grace Hopper");
  });
});
