// The dashboard's built files as the server sends them (docs/testing.md, Lighthouse): the build's Brotli and gzip
// copies of an asset to a browser that accepts them, the file itself to one that does not, with Vary and the
// one-year immutable cache either way; the page itself is never cached without asking again.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("static assets: precompressed copies chosen by Accept-Encoding", () => {
  let server: TestServer;
  let webDir: string;
  const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word-${i}`))};\n`;

  beforeAll(async () => {
    webDir = mkdtempSync(join(tmpdir(), "snip-web-"));
    mkdirSync(join(webDir, "assets"));
    writeFileSync(join(webDir, "index.html"), "<!doctype html><title>snip</title>");
    writeFileSync(join(webDir, "assets", "app-1.js"), script);
    writeFileSync(join(webDir, "assets", "app-1.js.br"), brotliCompressSync(script));
    writeFileSync(join(webDir, "assets", "app-1.js.gz"), gzipSync(script));
    // A file the build left uncompressed (under 1 kB): sent as it is, whatever the browser accepts.
    writeFileSync(join(webDir, "assets", "tiny-1.css"), "a{color:red}");
    server = await startTestServer({ env: { WEB_DIR: webDir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  const get = async (path: string, acceptEncoding: string) => {
    // undici's fetch would decode the body and hide the encoding: node:http keeps the bytes as sent.
    const { request } = await import("node:http");
    return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on("error", reject);
      req.end();
    });
  };

  it("sends the Brotli copy to a browser that accepts br (Chromium sends gzip, deflate, br, zstd)", async () => {
    const res = await get("/assets/app-1.js", "gzip, deflate, br, zstd");
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["vary"]).toMatch(/accept-encoding/i);
    expect(res.headers["content-type"]).toMatch(/^(text|application)\/javascript/);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(brotliDecompressSync(res.body).toString()).toBe(script);
    expect(res.body.length).toBeLessThan(script.length / 2);
  });

  it("sends the gzip copy when br is not accepted, and the file itself when nothing is", async () => {
    const gz = await get("/assets/app-1.js", "gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(script);
    const plain = await get("/assets/app-1.js", "identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("sends a file without copies as it is; a missing asset is a 404", async () => {
    const tiny = await get("/assets/tiny-1.css", "gzip, deflate, br");
    expect(tiny.status).toBe(200);
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.body.toString()).toBe("a{color:red}");
    expect((await get("/assets/missing-1.js", "br")).status).toBe(404);
  });

  it("the page is sent with no-cache (a new build's asset names reach the browser at once)", async () => {
    const page = await get("/app", "gzip, br");
    expect(page.status).toBe(200);
    expect(page.headers["cache-control"]).toBe("no-cache");
  });
});
