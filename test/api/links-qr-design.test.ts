// QR code design: colours, quiet zone and error-correction level change the image (read back from the SVG,
// from the PNG's pixels and through a QR decoder); too little contrast, a light code on a dark ground and
// malformed options are refused with the field named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { signedInClient } from "../helpers/client.js";
import { decodeQr, pixels, svgColours, svgUnits } from "../helpers/qr-images.js";

// A fixed text of 30 characters (the short URL and its QR marker): L fits version 2 (25 modules), M and Q
// version 3 (29), H version 4 (33).
const BASE = "https://s.example";
const ALIAS = "qr-des6";
/** What the code encodes: the short URL with the QR marker, so that scans are counted apart. */
const SHORT = `${BASE}/${ALIAS}?qr=1`;
const MODULES = { L: 25, M: 29, Q: 29, H: 33 };

async function bytes(r: Response): Promise<Buffer> {
  return Buffer.from(await r.arrayBuffer());
}

describe.each(ENGINES)("QR code design on %s", (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ engine, env: { BASE_URL: BASE } });
    const owner = await signedInClient(server, "design@example.com");
    expect((await owner.post("/api/links", { url: "https://example.com/", alias: ALIAS })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  const qr = (query: string) => fetch(`${server.url}/api/qr/${ALIAS}?${query}`);
  const svg = async (query: string) => {
    const r = await qr(query);
    expect(r.status, query).toBe(200);
    return r.text();
  };
  const png = async (query: string) => {
    const r = await qr(`format=png&${query}`);
    expect(r.status, query).toBe(200);
    return bytes(r);
  };
  const refusal = async (query: string) => {
    const r = await qr(query);
    expect(r.status, query).toBe(400);
    const body = await r.json();
    expect(body.code, query).toBe("invalid_request");
    return body.details;
  };

  it("without options: black on white, 2 modules of quiet zone, level M; it scans", async () => {
    const s = await svg("");
    expect(svgColours(s)).toEqual({ bg: "#ffffff", fg: "#000000" });
    expect(svgUnits(s)).toBe(MODULES.M + 4);
    const p = await pixels(await png("size=330"));
    expect(p.colours()).toEqual(["#000000", "#ffffff"]);
    expect(await decodeQr(await png("size=330"))).toBe(SHORT);
    // The query naming the defaults is the same image.
    expect(await svg("fg=000000&bg=ffffff&margin=2&ecl=M")).toBe(s);
  });

  it("fg and bg colour the SVG and the PNG, with or without #, in any case; it still scans", async () => {
    const s = await svg("fg=1A2B3C&bg=%23f0f0e0");
    expect(svgColours(s)).toEqual({ bg: "#f0f0e0", fg: "#1a2b3c" });
    expect(await svg("fg=%231a2b3c&bg=F0F0E0")).toBe(s);
    const img = await png("fg=1a2b3c&bg=f0f0e0&size=330");
    const p = await pixels(img);
    expect(p.colours()).toEqual(["#1a2b3c", "#f0f0e0"]);
    expect(p.at(0, 0)).toBe("#f0f0e0"); // the quiet zone
    expect(await decodeQr(img)).toBe(SHORT);
  });

  it("margin is the quiet zone in modules, 0 to 10", async () => {
    for (const margin of [0, 1, 4, 10]) expect(svgUnits(await svg(`margin=${margin}`)), String(margin)).toBe(MODULES.M + 2 * margin);
    // No quiet zone: the top-left finder pattern's corner is the first pixel. 10 modules of 10 px
    // (490 px over 29 + 20 modules): the first dark pixel of the finder's top row is the 101st (100 px to a rounding).
    expect((await pixels(await png("margin=0&size=290"))).at(0, 0)).toBe("#000000");
    const wide = await pixels(await png("margin=10&size=490"));
    const firstDark = Array.from({ length: 490 }, (_, x) => x).find((x) => wide.at(x, 105) === "#000000");
    expect(firstDark).toBeGreaterThanOrEqual(100);
    expect(firstDark).toBeLessThanOrEqual(101);
    expect(wide.at(5, 5)).toBe("#ffffff");
    expect(await decodeQr(await png("margin=10&size=490"))).toBe(SHORT);
  });

  it("ecl sets the level: more correction, more modules; every level scans", async () => {
    const seen = new Set<string>();
    for (const ecl of ["L", "M", "Q", "H"] as const) {
      const s = await svg(`ecl=${ecl}&margin=0`);
      expect(svgUnits(s), ecl).toBe(MODULES[ecl]);
      seen.add(s);
      expect(await decodeQr(await png(`ecl=${ecl}&size=512`)), ecl).toBe(SHORT);
    }
    expect(seen.size).toBe(4); // M and Q have as many modules, but not the same ones
  });

  it("each option is its own cached image and ETag; If-None-Match answers 304", async () => {
    const tags = new Set<string>();
    for (const q of ["", "fg=1a2b3c", "bg=f0f0e0", "margin=3", "ecl=Q", "format=png", "fg=1a2b3c&format=png"]) {
      const r = await qr(q);
      expect(r.status, q).toBe(200);
      tags.add(r.headers.get("etag") as string);
      expect(r.headers.get("cache-control")).toBe("public, max-age=60");
      expect(r.headers.get("qr-logo")).toBeNull();
    }
    expect(tags.size).toBe(7);
    const first = await qr("fg=1a2b3c&margin=5");
    const etag = first.headers.get("etag") as string;
    expect((await fetch(`${server.url}/api/qr/${ALIAS}?fg=1A2B3C&margin=5`)).headers.get("etag")).toBe(etag);
    const again = await fetch(`${server.url}/api/qr/${ALIAS}?fg=1a2b3c&margin=5`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("too little contrast is refused on the colour the caller chose, with the ratio; 3:1 passes", async () => {
    const close = (other: string, ratio: string) => `Too close to the ${other} (contrast ${ratio}:1); scanners need at least 3:1`;
    expect(await refusal("fg=777777&bg=888888")).toEqual([{ field: "fg", message: close("background", "1.2") }]);
    expect(await refusal("fg=999999")).toEqual([{ field: "fg", message: close("background", "2.8") }]);
    // Only the background given: the problem is the background's.
    expect(await refusal("bg=333333")).toEqual([{ field: "bg", message: close("foreground", "1.6") }]);
    expect(await refusal("bg=000000")).toEqual([{ field: "bg", message: close("foreground", "1.0") }]);
    expect(await refusal("fg=1a2b3c&bg=1a2b3c")).toEqual([{ field: "fg", message: close("background", "1.0") }]);
    // 2.99:1 reads 2.9, never "3.0": #959595 on white is 2.99, #949494 is 3.03.
    expect(await refusal("fg=959595")).toEqual([{ field: "fg", message: close("background", "2.9") }]);
    expect(svgColours(await svg("fg=949494"))).toEqual({ bg: "#ffffff", fg: "#949494" });
    expect(svgColours(await svg("fg=0000ff&bg=ffff00"))).toEqual({ bg: "#ffff00", fg: "#0000ff" });
  });

  it("a light code on a dark ground is refused whatever the contrast", async () => {
    const lightOnDark = "Use a foreground darker than the background: many scanners cannot read light codes on a dark ground";
    expect(await refusal("fg=ffffff&bg=000000")).toEqual([{ field: "fg", message: lightOnDark }]);
    expect(await refusal("fg=ffff00&bg=0000ff")).toEqual([{ field: "fg", message: lightOnDark }]);
    expect(await refusal("fg=eeeeee&bg=222222")).toEqual([{ field: "fg", message: lightOnDark }]);
  });

  it("malformed options: 400 naming each field, never 5xx", async () => {
    const colour = "Enter a colour as 6 hex digits, such as 1a2b3c";
    for (const q of ["fg=", "fg=12345", "fg=1234567", "fg=12345g", "fg=%23%23123456", "fg=red", "fg=%20123456", "fg=rgb(0,0,0)"]) {
      expect(await refusal(q), q).toEqual([{ field: "fg", message: colour }]);
    }
    expect(await refusal("fg=zzz&bg=12345")).toEqual([
      { field: "fg", message: colour },
      { field: "bg", message: colour },
    ]);
    expect(await refusal(`bg=${"a".repeat(33)}`)).toEqual([{ field: "bg", message: "must not have more than 32 characters" }]);
    expect(await refusal("fg=000000&fg=111111")).toEqual([{ field: "fg", message: "must be string" }]);
    expect(await refusal("margin=11")).toEqual([{ field: "margin", message: "must be <= 10" }]);
    expect(await refusal("margin=-1")).toEqual([{ field: "margin", message: "must be >= 0" }]);
    for (const q of ["margin=1.5", "margin=", "margin=x", "margin=1e1", "margin=%2B1", "size=300.5"]) {
      expect(await refusal(q), q).toEqual([{ field: q.split("=")[0], message: "must be integer" }]);
    }
    for (const q of ["ecl=X", "ecl=h", "ecl=", "logo=2", "logo=true", "logo="]) {
      expect(await refusal(q), q).toEqual([{ field: q.split("=")[0], message: "must be equal to one of the allowed values" }]);
    }
    // With a logo, the level must leave room for it (checked before anyone signs in).
    for (const ecl of ["L", "M"]) expect(await refusal(`logo=1&ecl=${ecl}`)).toEqual([{ field: "ecl", message: "A logo needs error correction Q or H" }]);
  });
});
