// The redirect fast path reads Host, User-Agent, Referer, Accept-Language and Cookie from node's rawHeaders
// (src/http/raw-headers.ts) instead of req.headers: for every request below, sent byte for byte to a real
// node:http server, it must read exactly what req.headers gives (first Host, User-Agent and Referer kept,
// Cookie joined with "; ", Accept-Language with ", "), whatever the letter case.
import { createServer } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DirectHeaders, fromHeaderObject, readDirectHeaders } from "../../src/http/raw-headers.js";
import { withoutPort } from "../../src/http/proxy.js";

const blank = (): DirectHeaders => ({ host: "", userAgent: "", referer: "", acceptLanguage: "", cookie: "" });

const REQUESTS: string[][] = [
  ["Host: sho.rt:8080", "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0", "Accept-Language: fr-CH, fr;q=0.9", "Cookie: a=1"],
  ["host: sho.rt", "user-agent: curl/8.0", "referer: https://news.example/x", "accept-language: en", "cookie: snip_v3=2"],
  ["HOST: first.example", "Host: second.example", "USER-AGENT: one", "User-Agent: two", "Referer: https://a.example/", "REFERER: https://b.example/"],
  ["Host: sho.rt", "Cookie: a=1", "cookie: b=2", "COOKIE: snip_v9=1", "Accept-Language: de", "accept-language: en;q=0.5"],
  ["Host: sho.rt", "User-Agent:", "Referer:", "Cookie:", "Accept-Language:"],
  ["Host: [::1]:8080", "X-User-Agent: not this", "Referer-Policy: no", "Cookies: no", "Accept-Languages: no", "Hosts: no"],
  ["Host: sho.rt"],
];

let port = 0;
const seen: Array<{ raw: DirectHeaders; node: DirectHeaders; hostname: [string, string] }> = [];
const server = createServer((req, res) => {
  const raw = readDirectHeaders(req.rawHeaders, blank());
  const node = fromHeaderObject(req.headers, blank());
  seen.push({ raw, node, hostname: [withoutPort(raw.host), withoutPort(req.headers.host)] });
  res.end();
});

function send(lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET /abc HTTP/1.1\r\n${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`));
    socket.on("data", () => undefined);
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the fast path's headers from rawHeaders", () => {
  it("read exactly what node's req.headers holds, for repeated, empty, missing and look-alike headers in any case", async () => {
    for (const lines of REQUESTS) await send(lines);
    expect(seen).toHaveLength(REQUESTS.length);
    for (const [i, s] of seen.entries()) {
      expect(s.raw, REQUESTS[i]!.join(" | ")).toEqual(s.node);
      expect(s.hostname[0]).toBe(s.hostname[1]);
    }
    // The combinations themselves, so that a reader that matched node by accident on plain requests still fails here.
    expect(seen[2]).toMatchObject({ raw: { host: "first.example", userAgent: "one", referer: "https://a.example/" } });
    expect(seen[3]!.raw).toMatchObject({ cookie: "a=1; b=2; snip_v9=1", acceptLanguage: "de, en;q=0.5" });
    expect(seen[5]!.raw).toEqual({ host: "[::1]:8080", userAgent: "", referer: "", acceptLanguage: "", cookie: "" });
    expect(seen[5]!.hostname[0]).toBe("[::1]");
  });

  it("overwrites every field of a reused object", () => {
    const out = readDirectHeaders(["Host", "a.example", "Cookie", "x=1", "Referer", "r", "User-Agent", "u", "Accept-Language", "fr"], blank());
    expect(readDirectHeaders(["host", "b.example"], out)).toEqual({ host: "b.example", userAgent: "", referer: "", acceptLanguage: "", cookie: "" });
  });
});
