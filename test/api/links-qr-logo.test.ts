// QR codes with the owner's picture in the centre (logo=1): drawn at level H (or Q), scannable, for the owner
// and the members of the owner's team only, always the owner's picture; without one, the plain code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ENGINES } from "../helpers/engines.js";
import { ApiClient, signedInClient } from "../helpers/client.js";
import { linkIn, readOutbox, tokenOf } from "../helpers/mail.js";
import { decodeQr, pixels, solidPicture, svgUnits } from "../helpers/qr-images.js";
import { ManualClock } from "../../src/shared/clock.js";
import { logoSquare } from "../../src/links/qr-logo-draw.js";

// 30 characters: version 3 (29 modules) at level Q, version 4 (33) at H.
const BASE = "https://s.example";
/** What a code encodes: the short URL with the QR marker. */
const short = (alias: string) => `${BASE}/${alias}?qr=1`;
// The aliases are short enough that the code with its marker keeps the module counts the geometry below is drawn for.

async function bytes(r: Response): Promise<Buffer> {
  return Buffer.from(await r.arrayBuffer());
}

describe.each(ENGINES)("QR code logos on %s", (engine) => {
  let server: TestServer;
  let owner: ApiClient;
  let member: ApiClient;
  let stranger: ApiClient;
  const clock = new ManualClock();

  const putPicture = async (c: ApiClient, body: Buffer, type: string) => {
    expect((await c.put("/api/profile/picture", body, { "content-type": type })).status).toBe(200);
    clock.advance(1000); // the next picture gets another version
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, clock, env: { BASE_URL: BASE } });
    owner = await signedInClient(server, "logo-owner@example.com", "business");
    member = await signedInClient(server, "logo-member@example.com");
    stranger = await signedInClient(server, "logo-stranger@example.com");
    expect((await owner.post("/api/team/invitations", { email: "logo-member@example.com" })).status).toBe(201);
    const raw = readOutbox(server.outboxDir).find((m) => m.includes("To: logo-member@example.com"));
    expect((await member.post("/api/invitations/accept", { token: tokenOf(linkIn(raw as string, "/app/invitations/accept?token=")) })).status).toBe(200);
    expect((await owner.post("/api/links", { url: "https://example.com/", alias: "qr-logo" })).status).toBe(201);
    await putPicture(owner, await solidPicture("#ff0000", "png"), "image/png");
    await putPicture(member, await solidPicture("#0000ff", "png"), "image/png");
  });
  afterAll(async () => server?.close());

  const get = (c: ApiClient | null, query: string, alias = "qr-logo", headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/qr/${alias}?${query}`, { headers: { ...(c?.cookie ? { cookie: c.cookie } : {}), ...headers } });
  const image = async (c: ApiClient, query: string, alias?: string) => {
    const r = await get(c, query, alias);
    expect(r.status, query).toBe(200);
    return { r, body: await bytes(r) };
  };

  it("logo=1: the owner's picture in a cleared square of whole modules at level H; PNG and SVG scan", async () => {
    const { r, body } = await image(owner, "logo=1&format=png&size=370&fg=1a2b3c&bg=f0f0e0");
    expect(r.headers.get("qr-logo")).toBe("drawn");
    expect(r.headers.get("cache-control")).toBe("private, max-age=60");
    expect(r.headers.get("vary")).toMatch(/cookie/i);
    const p = await pixels(body);
    // 33 modules + 2 x 2 of quiet zone at 10 px: the square is 9 modules from module 12; the picture 5 px inside it.
    expect(logoSquare(33, "H")).toEqual({ start: 12, span: 9 });
    expect(p.colours()).toEqual(["#1a2b3c", "#f0f0e0", "#ff0000"]);
    expect(p.at(185, 185)).toBe("#ff0000");
    expect(p.at(143, 185)).toBe("#f0f0e0"); // the square's edge, left of the picture
    expect(p.at(147, 185)).toBe("#ff0000");
    expect(await decodeQr(body)).toBe(short("qr-logo"));

    const svg = (await image(owner, "logo=1")).body.toString();
    expect(svgUnits(svg)).toBe(33 + 4);
    expect(svg).toContain(
      '<rect x="14" y="14" width="9" height="9" fill="#ffffff"/><image x="14.5" y="14.5" width="8" height="8" href="data:image/png;base64,',
    );
    const embedded = Buffer.from(/href="data:image\/png;base64,([^"]+)"/.exec(svg)?.[1] ?? "", "base64");
    expect((await pixels(embedded)).colours()).toEqual(["#ff0000"]);
    expect(await decodeQr(Buffer.from(svg))).toBe(short("qr-logo"));
  });

  it("ecl=Q makes room for a smaller square; ecl=H is the default; L and M are refused", async () => {
    const q = (await image(owner, "logo=1&ecl=Q")).body.toString();
    expect(svgUnits(q)).toBe(29 + 4);
    expect(logoSquare(29, "Q")).toEqual({ start: 12, span: 5 });
    expect(q).toContain('<rect x="14" y="14" width="5" height="5" fill="#ffffff"/>');
    expect(await decodeQr((await image(owner, "logo=1&ecl=Q&format=png&size=512")).body)).toBe(short("qr-logo"));
    expect((await image(owner, "logo=1&ecl=H")).body.toString()).toBe((await image(owner, "logo=1")).body.toString());
    const refused = await get(owner, "logo=1&ecl=M");
    expect(refused.status).toBe(400);
    expect((await refused.json()).details).toEqual([{ field: "ecl", message: "A logo needs error correction Q or H" }]);
  });

  it("signed out: 401; a stranger: 403; a member: the owner's picture, not their own", async () => {
    const out = await get(null, "logo=1");
    expect(out.status).toBe(401);
    expect((await out.json()).code).toBe("unauthenticated");
    const other = await get(stranger, "logo=1&format=png");
    expect(other.status).toBe(403);
    expect((await other.json()).code).toBe("forbidden");
    // Without logo=1 the code stays public for everyone.
    expect((await get(null, "")).status).toBe(200);
    const asOwner = await image(owner, "logo=1&format=png&size=370");
    const asMember = await image(member, "logo=1&format=png&size=370");
    expect(asMember.r.headers.get("qr-logo")).toBe("drawn");
    expect((await pixels(asMember.body)).at(185, 185)).toBe("#ff0000");
    expect(asMember.body.equals(asOwner.body)).toBe(true);
    expect(asMember.r.headers.get("etag")).toBe(asOwner.r.headers.get("etag"));
  });

  it("a link of no one's: logo=1 is refused to everyone signed in", async () => {
    expect((await new ApiClient(server.url).init().then((c) => c.post("/api/links", { url: "https://example.com/", alias: "qr-logo-anon" }))).status).toBe(201);
    const r = await get(owner, "logo=1", "qr-logo-anon");
    expect(r.status).toBe(403);
    expect((await r.json()).code).toBe("forbidden");
  });

  it("without a picture: the plain code at the logo's level, said in QR-Logo: none", async () => {
    const bare = await signedInClient(server, "logo-bare@example.com");
    expect((await bare.post("/api/links", { url: "https://example.com/", alias: "qr-logo-bare" })).status).toBe(201);
    for (const [query, plain] of [
      ["logo=1&format=png", "ecl=H&format=png"],
      ["logo=1&ecl=Q", "ecl=Q"],
    ]) {
      const { r, body } = await image(bare, query as string, "qr-logo-bare");
      expect(r.headers.get("qr-logo")).toBe("none");
      expect(r.headers.get("cache-control")).toBe("private, max-age=60");
      expect(body.equals((await image(bare, plain as string, "qr-logo-bare")).body), query).toBe(true);
    }
    // A picture uploaded since: drawn at once (the ETag names the picture's version).
    const before = (await get(bare, "logo=1", "qr-logo-bare")).headers.get("etag");
    await putPicture(bare, await solidPicture("#00aa00", "png"), "image/png");
    const after = await image(bare, "logo=1&format=png&size=370", "qr-logo-bare");
    expect(after.r.headers.get("qr-logo")).toBe("drawn");
    expect(after.r.headers.get("etag")).not.toBe(before);
    expect((await pixels(after.body)).at(185, 185)).toBe("#00aa00");
  });

  it("JPEG and WebP pictures; transparency shows the background; a picture that cannot be read leaves the code plain", async () => {
    const pic = await signedInClient(server, "logo-formats@example.com");
    expect((await pic.post("/api/links", { url: "https://example.com/", alias: "qr-logo-form" })).status).toBe(201);
    const centre = async (query: string) => (await pixels((await image(pic, `logo=1&format=png&size=370&${query}`, "qr-logo-form")).body)).at(185, 185);
    await putPicture(pic, await solidPicture("#0000ff", "webp"), "image/webp");
    expect(await centre("")).toBe("#0000ff");
    expect((await image(pic, "logo=1", "qr-logo-form")).body.toString()).toContain('href="data:image/png;base64,');
    await putPicture(pic, await solidPicture("#000000", "jpeg"), "image/jpeg");
    expect(await centre("")).toBe("#000000");
    expect((await image(pic, "logo=1", "qr-logo-form")).body.toString()).toContain('href="data:image/jpeg;base64,');
    const clear = await (
      await import("sharp")
    )
      .default({ create: { width: 32, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    await putPicture(pic, clear, "image/png");
    expect(await centre("bg=ffeedd")).toBe("#ffeedd");
    // The right first bytes, then nothing a decoder can read: 200 and the plain code, never a 5xx.
    await putPicture(pic, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]), "image/png");
    const broken = await image(pic, "logo=1&format=png&size=370", "qr-logo-form");
    expect(broken.body.equals((await image(pic, "ecl=H&format=png&size=370", "qr-logo-form")).body)).toBe(true);
    expect(await decodeQr(broken.body)).toBe(short("qr-logo-form"));
  });
});
