// QR drawing never stalls redirects: 2048-px PNGs are drawn in worker threads while the event loop
// keeps answering, and a full drawing queue answers 429 at once (storage plays no part: SQLite only).
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { signedInClient } from "../helpers/client.js";
import { visit } from "../helpers/visit.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("QR drawing off the event loop", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "127.0.0.1" } });
    const owner = await signedInClient(server, "qr-loop@example.com", "free");
    for (const alias of ["qr-hot", "qr-a", "qr-b"]) expect((await owner.post("/api/links", { url: "https://example.com/", alias })).status).toBe(201);
  });
  afterAll(async () => server?.close());

  // Each request a new image from an address of its own: neither the cache nor the per-address bound hides the work.
  const draw = (size: number, alias = "qr-a") =>
    fetch(`${server.url}/api/qr/${alias}?format=png&size=${size}`, { headers: { "x-forwarded-for": `192.0.2.${size % 250}` } });

  it("while 8 parallel 2048-px PNGs are drawn, the event loop never stalls and redirects answer quickly", async () => {
    // The server runs in this process: its event loop is this one.
    let drawing = true;
    /** When each redirect's answer arrived. */
    const redirectsAt: number[] = [];
    const redirects = (async () => {
      while (drawing) {
        expect(await visit(server.url, "/qr-hot")).toBe(302);
        redirectsAt.push(performance.now());
        // A visitor's pace (not a wait for anything): the loop leaves the event loop to the server between visits.
        await sleep(5);
      }
    })();
    // 8 loops, each until its image arrived (a full queue answers 429 at once: then it asks again once
    // a drawing has finished, as the queue then has room).
    const t0 = performance.now();
    let firstImageAt = Infinity;
    let imagesDone = 0;
    const onImage: (() => void)[] = [];
    const statuses: number[] = [];
    const sizes = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        for (;;) {
          const doneBefore = imagesDone;
          const r = await draw(2048 - i, i % 2 ? "qr-a" : "qr-b");
          statuses.push(r.status);
          if (r.status === 200) {
            const size = Buffer.from(await r.arrayBuffer()).readUInt32BE(16);
            firstImageAt = Math.min(firstImageAt, performance.now());
            imagesDone++;
            for (const wake of onImage.splice(0)) wake();
            return size;
          }
          expect(r.status).toBe(429);
          expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          await r.arrayBuffer();
          // Refused while the queue was full: a drawing was in flight, and finishes (or has finished).
          if (imagesDone === doneBefore) await new Promise<void>((wake) => onImage.push(wake));
        }
      }),
    );
    const wallMs = performance.now() - t0;
    drawing = false;
    await redirects;
    expect(sizes).toEqual([2048, 2047, 2046, 2045, 2044, 2043, 2042, 2041]);
    // Eight drawings of ~0.5 s or more each: on the event loop they would have held it for seconds.
    expect(wallMs).toBeGreaterThan(1000);
    expect(redirectsAt.length).toBeGreaterThan(10);
    // Drawn on the event loop, the first drawing holds it from its start to its answer: a redirect or two
    // could be answered before it began, none during it. Off it, the redirects go on meanwhile (dozens in
    // the half second or more a drawing takes). How fast they are answered is bench/event-loop.ts's.
    const whileFirstDrawn = redirectsAt.filter((at) => at > t0 && at < firstImageAt).length;
    expect(whileFirstDrawn, `redirects answered before the first image (${(firstImageAt - t0).toFixed(0)} ms)`).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it("a full drawing queue answers 429 rate_limited with Retry-After at once, and the accepted images are right", async () => {
    // One thread on two cores (at most two), each with 4 waiting heavy jobs: threads x 5 accepted at once.
    const workers = Math.max(1, Math.min(2, availableParallelism() - 1));
    const accepted = workers * 5;
    const extra = 3;
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: accepted + extra }, async (_, i) => {
        const r = await draw(1800 + i);
        const ms = performance.now() - t0;
        return { status: r.status, ms, retry: r.headers.get("retry-after"), body: r.status === 200 ? Buffer.from(await r.arrayBuffer()) : await r.json() };
      }),
    );
    const refused = answers.filter((a) => a.status === 429);
    const ok = answers.filter((a) => a.status === 200);
    expect(refused).toHaveLength(extra);
    expect(ok).toHaveLength(accepted);
    for (const r of refused) {
      expect(r.body).toMatchObject({ status: "error", code: "rate_limited" });
      expect(Number(r.retry)).toBeGreaterThanOrEqual(1);
      // Refused before any drawing finished (one takes about half a second).
      expect(r.ms).toBeLessThan(Math.min(...ok.map((a) => a.ms)));
    }
    expect(ok.map((a) => (a.body as Buffer).readUInt32BE(16)).sort()).toEqual(
      answers.map((a, i) => (a.status === 200 ? 1800 + i : null)).filter((x) => x !== null),
    );
  }, 120_000);
});
