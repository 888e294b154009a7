// src/http/proxy.ts must read a request exactly as Fastify's request.ip and request.hostname do for the
// same TRUST_PROXY, because the redirect fast path answers without Fastify: every trust form, with
// spoofed, chained, duplicated and missing headers, from a trusted and an untrusted peer.
import type { IncomingMessage } from "node:http";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import type { TrustProxy } from "../../src/config.js";
import { cleanForwardedFor, clientIp, hostnameOf, proxyCountry, trustOf } from "../../src/http/proxy.js";

const REQUESTS: Array<{ peer: string; headers: Record<string, string> }> = [
  { peer: "127.0.0.1", headers: { host: "sho.rt:8080" } },
  { peer: "127.0.0.1", headers: { host: "sho.rt", "x-forwarded-for": "203.0.113.7", "x-forwarded-host": "go.example", "cf-ipcountry": " de " } },
  {
    peer: "10.1.2.3",
    headers: { host: "sho.rt", "x-forwarded-for": "198.51.100.1, 10.0.0.9", "x-forwarded-host": "a.example, b.example:8443", "cf-ipcountry": "BR" },
  },
  { peer: "192.0.2.50", headers: { host: "[::1]:8080", "x-forwarded-for": "evil, 203.0.113.9", "x-forwarded-host": "spoofed.example", "cf-ipcountry": "JP" } },
  { peer: "::ffff:127.0.0.1", headers: { host: "sho.rt", "x-forwarded-for": "::1, 2001:db8::1", "cf-ipcountry": "a-very-long-country-value" } },
  { peer: "127.0.0.1", headers: { "x-forwarded-for": "", "x-forwarded-host": "" } },
];

const TRUSTS: TrustProxy[] = [false, true, 1, 2, ["127.0.0.1"], ["10.0.0.0/8", "127.0.0.1"], ["loopback"]];

describe("proxy.ts reads requests as Fastify does", () => {
  it.each(TRUSTS.map((t) => [JSON.stringify(t), t] as const))("TRUST_PROXY %s: client address and host name match Fastify's", async (_name, tp) => {
    const trust = trustOf(tp);
    const app = Fastify({ trustProxy: trust ?? false });
    app.get("/x", async (req) => ({
      fastify: { ip: req.ip, hostname: req.hostname },
      ours: { ip: clientIp(req.raw, trust), hostname: hostnameOf(req.raw, trust) },
    }));
    try {
      for (const r of REQUESTS) {
        const res = await app.inject({ method: "GET", url: "/x", remoteAddress: r.peer, headers: r.headers });
        const body = res.json() as { fastify: unknown; ours: unknown };
        expect(body.ours, `${JSON.stringify(tp)} ${JSON.stringify(r)}`).toEqual(body.fastify);
      }
    } finally {
      await app.close();
    }
  });

  it("believes the country header and X-Forwarded-Host only from a trusted peer", async () => {
    const trust = trustOf(["10.0.0.0/8"]);
    const app = Fastify({ trustProxy: trust ?? false });
    app.get("/x", async (req) => ({ country: proxyCountry(req.raw, trust, "cf-ipcountry"), host: hostnameOf(req.raw, trust), ip: clientIp(req.raw, trust) }));
    const headers = { host: "sho.rt", "x-forwarded-for": "203.0.113.7", "x-forwarded-host": "go.example", "cf-ipcountry": " de " };
    try {
      const viaProxy = await app.inject({ method: "GET", url: "/x", remoteAddress: "10.9.9.9", headers });
      expect(viaProxy.json()).toEqual({ country: "de", host: "go.example", ip: "203.0.113.7" });
      const direct = await app.inject({ method: "GET", url: "/x", remoteAddress: "192.0.2.1", headers });
      expect(direct.json()).toEqual({ country: null, host: "sho.rt", ip: "192.0.2.1" });
      const long = await app.inject({ method: "GET", url: "/x", remoteAddress: "10.9.9.9", headers: { ...headers, "cf-ipcountry": "x".repeat(100) } });
      expect(long.json().country).toBe("x".repeat(16));
      const blank = await app.inject({ method: "GET", url: "/x", remoteAddress: "10.9.9.9", headers: { ...headers, "cf-ipcountry": "   " } });
      expect(blank.json().country).toBeNull();
    } finally {
      await app.close();
    }
    expect(trustOf(false)).toBeNull();
  });

  it("a trusted-address list gives the same answers past its memo's bound, whatever the order", () => {
    const trust = trustOf(["10.0.0.0/8", "::1"]);
    if (trust === null) throw new Error("a trust function expected");
    const addresses = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `10.1.${i >> 8}.${i & 255}` : i % 3 === 1 ? `192.0.2.${i & 255}` : `spoofed-${i}`));
    for (let round = 0; round < 2; round++) {
      expect(addresses.map((a) => trust(a, 5))).toEqual(addresses.map((_, i) => i % 3 === 0));
      expect([trust("::1", 0), trust("::2", 0), trust("10.255.255.255", 1), trust("11.0.0.1", 0)]).toEqual([true, false, true, false]);
    }
  });

  it("keeps only the X-Forwarded-For entries that can be an address; a plain header is left as it was", () => {
    const cleaned = (value: string) => {
      const req = { headers: { "x-forwarded-for": value } } as unknown as IncomingMessage;
      cleanForwardedFor(req);
      return req.headers["x-forwarded-for"];
    };
    // The fuzzer's find: UTF-8 bytes read as Latin-1 carry C1 controls into the client address.
    expect(cleaned(".\u00c2\u0085")).toBeUndefined();
    expect(cleaned("198.51.100.7, \u0000evil, 10.0.0.9")).toBe("198.51.100.7, 10.0.0.9");
    expect(cleaned("<script>, 2001:db8::1")).toBe("2001:db8::1");
    for (const plain of ["203.0.113.7", "198.51.100.1, 10.0.0.9", "unknown, [2001:db8::1]:443", "fe80::1%eth0", "1.2.3.4:5678", ""])
      expect(cleaned(plain)).toBe(plain);
  });
});
